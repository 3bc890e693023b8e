import { routeUrl } from '../shared/api/route-url.js';
import { rolesRoutes } from '../shared/api/routes/roles.js';
import { requirePermissionsWithinCaller, requireRolesWithinCaller } from '../shared/auth/access-ceiling.js';
import { dependentPermissionsOf } from '../shared/domain/effective-permissions.js';
import { NotFound } from '../shared/domain/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { nextPageLink } from '../shared/http/next-page-link.js';
import type { Role } from '../shared/schemas/roles.js';
import { visibleIds } from '../shared/store/archive.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import {
  getManagedRole,
  listManagedRoles,
  type ManagedRoleRecord,
  permissionDependencies,
} from '../shared/store/catalogue-repository.js';
import { clearDefaultRole, getDefaultRole, setDefaultRole } from '../shared/store/organization-repository.js';
import {
  changeRolePluginPermissions,
  rolePluginContext,
  rolePluginGrantIds,
} from '../shared/store/role-plugin-permissions.js';
import {
  archiveRole,
  changeRolePermissions,
  createRole,
  listRoles,
  type RoleRecord,
  requireRole,
  setRolePermissions,
} from '../shared/store/role-repository.js';

const presentRole = (role: RoleRecord, dependencies: ReadonlyMap<string, readonly string[]>): Role => ({
  id: role.id,
  name: role.name,
  permissions: visibleIds(role.permissions),
  dependentPermissions: dependentPermissionsOf([...(role.permissions ?? [])], dependencies),
  pluginPermissions: {
    id: role.id,
    pluginPermissions: Object.keys(role.pluginPermissions)
      .sort()
      .flatMap((pluginId) =>
        (role.pluginPermissions[pluginId] ?? []).map(({ module, actionName }) => ({ module, actionName })),
      ),
  },
  createdAt: role.createdAt,
  updatedAt: role.updatedAt,
});

const presentManagedRole = (role: ManagedRoleRecord) => ({
  id: role.id,
  createdAt: role.createdAt,
  updatedAt: role.updatedAt,
  permissions: [...role.permissions].sort(),
  pluginPermissions: Object.entries(role.pluginPermissions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pluginId, actions]) => ({
      id: pluginId,
      pluginPermissions: actions.map(({ actionName, module }) => ({ actionName, module })),
    })),
});

/** Roles, managed roles and the default role (spec 4.3). */
export const handler = groupHandler(
  rolesRoutes,
  {
    listRoles: async ({ query }, { principal }) => {
      const [{ roles, hasMore, nextAfter }, dependencies] = await Promise.all([
        listRoles(principal.organizationId, query.page, query.pageSize, query.after),
        permissionDependencies(),
      ]);
      return {
        body: roles.map((role) => presentRole(role, dependencies)),
        ...(hasMore ? { headers: nextPageLink(rolesRoutes.listRoles, query, nextAfter) } : {}),
      };
    },

    createRole: async ({ body }, { principal }) => {
      await requirePermissionsWithinCaller(principal, body.permissions, 'This role');
      const role = await createRole({
        organizationId: principal.organizationId,
        ...body,
        createdBy: principal.id,
      });
      // Beyond the spec: the 204 names the new role, which the body cannot.
      return { headers: { location: routeUrl(rolesRoutes.getRole, { id: role.id }) } };
    },

    getRole: async ({ path }, { principal }) => {
      const [role, dependencies] = await Promise.all([
        requireRole(principal.organizationId, path.id),
        permissionDependencies(),
      ]);
      return { body: presentRole(role, dependencies) };
    },

    updateRole: async ({ path, body }, { principal }) => {
      // Only what the change adds: a permission the role keeps was given before (as the write
      // reads the role, so one revoked meanwhile counts as added).
      await setRolePermissions(principal.organizationId, path.id, body.permissions, (added) =>
        requirePermissionsWithinCaller(principal, added, "Adding these to the role's permissions"),
      );
      return {};
    },

    archiveRole: async ({ path }, { principal }) => {
      await archiveRole(principal.organizationId, path.id);
      return {};
    },

    assignRolePermissions: async ({ path, body }, { principal }) => {
      await requirePermissionsWithinCaller(
        principal,
        body.permissionIds,
        "Adding these to the role's permissions",
      );
      await changeRolePermissions(principal.organizationId, path.id, body.permissionIds, 'ADD');
      return {};
    },

    // Not checked against the catalogue: an id the catalogue dropped must still be removable.
    revokeRolePermissions: async ({ path, body }, { principal }) => {
      await changeRolePermissions(principal.organizationId, path.id, body.permissionIds, 'DELETE');
      return {};
    },

    getRolePluginPermissions: async ({ path }, { principal }) => {
      const { role } = await rolePluginContext(principal.organizationId, path.id, path.pluginId);
      return { body: { pluginPermissions: rolePluginGrantIds(role, path.pluginId) } };
    },

    setRolePluginPermissions: async ({ path, body }, { principal }) => {
      await changeRolePluginPermissions(principal.organizationId, path.id, path.pluginId, body, 'set', '');
      return {};
    },

    assignRolePluginPermissions: async ({ path, body }, { principal }) => {
      await changeRolePluginPermissions(
        principal.organizationId,
        path.id,
        path.pluginId,
        body.pluginPermissions,
        'assign',
        'pluginPermissions',
      );
      return {};
    },

    revokeRolePluginPermissions: async ({ path, body }, { principal }) => {
      await changeRolePluginPermissions(
        principal.organizationId,
        path.id,
        path.pluginId,
        body.pluginPermissions,
        'revoke',
        'pluginPermissions',
      );
      return {};
    },

    listManagedRoles: async () => ({ body: (await listManagedRoles()).map(presentManagedRole) }),

    getManagedRole: async ({ path }) => {
      const role = await getManagedRole(path.id);
      if (!role) throw new NotFound('Managed role', path.id);
      return { body: presentManagedRole(role) };
    },

    getDefaultRole: async (_input, { principal }) => {
      const defaultRole = await getDefaultRole(principal.organizationId);
      return { body: defaultRole ?? { isStandardRole: null } };
    },

    setDefaultRole: async ({ body }, { principal }) => {
      // Every new user gets it: the caller must hold what it gives (a role or a managed role id).
      await requireRolesWithinCaller(
        principal,
        { roleIds: [body.roleId], managedRoleIds: [body.roleId] },
        'Making this the default role',
      );
      await setDefaultRole(principal.organizationId, body.roleId);
      return {};
    },

    clearDefaultRole: async (_input, { principal }) => {
      await clearDefaultRole(principal.organizationId);
      return {};
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin, idempotency },
);
