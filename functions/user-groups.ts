import { routeUrl } from '../shared/api/route-url.js';
import { userGroupsRoutes } from '../shared/api/routes/user-groups.js';
import { requireGroupGrantsWithinCaller, requireRolesWithinCaller } from '../shared/auth/access-ceiling.js';
import type { Principal } from '../shared/auth/principal.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { nextPageLink } from '../shared/http/next-page-link.js';
import type { UserGroup } from '../shared/schemas/user-groups.js';
import { type ArchivedIds, archivedIds, NO_ARCHIVED_IDS, visibleIds } from '../shared/store/archive.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { type GrantField, grantTarget } from '../shared/store/grant-targets.js';
import { deleteUserGroup, duplicateUserGroup } from '../shared/store/user-group-lifecycle.js';
import {
  changeUserGroupGrant,
  countUserGroups,
  createUserGroup,
  listUserGroups,
  requireUserGroup,
  type UserGroupRecord,
  updateUserGroup,
} from '../shared/store/user-group-repository.js';

/** The UserGroup shape; references to archived roles and policies stay stored but are not shown. */
const presentGroup = (group: UserGroupRecord, archived: ArchivedIds = NO_ARCHIVED_IDS): UserGroup => ({
  id: group.id,
  name: group.name,
  createdAt: group.createdAt,
  updatedAt: group.updatedAt,
  createdBy: group.createdBy,
  updatedBy: group.updatedBy,
  ...(group.number !== undefined ? { number: group.number } : {}),
  ...(group.description !== undefined ? { description: group.description } : {}),
  roles: visibleIds(group.roles, archived.roles),
  managedRoles: visibleIds(group.managedRoles),
  policies: visibleIds(group.policies, archived.policies),
  status: group.status,
});

const withArchived = async (orgId: string, group: Promise<UserGroupRecord>) => {
  const [record, archived] = await Promise.all([group, archivedIds(orgId)]);
  return { body: { userGroup: presentGroup(record, archived) } };
};

/** The id a body names: `roleId`, `policyId` or `managedRoleId` (one per assignment route). */
const targetId = (body: Record<string, string>): string =>
  body.roleId ?? body.policyId ?? (body.managedRoleId as string);

const changeGrant =
  (field: GrantField, operation: 'ADD' | 'DELETE') =>
  async (
    { path, body }: { path: { id: string }; body: Record<string, string> },
    { principal }: { principal: Principal },
  ) => {
    const org = principal.organizationId;
    const id = targetId(body);
    // The group's members get what it is given (docs/behaviour.md, "Granting").
    if (operation === 'ADD' && field !== 'policies')
      await requireRolesWithinCaller(
        principal,
        field === 'roles' ? { roleIds: [id] } : { managedRoleIds: [id] },
        'Giving this user group the role',
      );
    await changeUserGroupGrant(org, path.id, grantTarget(org, field, id), operation, principal.id);
    return withArchived(org, requireUserGroup(org, path.id));
  };

/** User groups (spec 4.2), STANDARD user type only. */
export const handler = groupHandler(
  userGroupsRoutes,
  {
    createUserGroup: async ({ body }, { principal }) => {
      const group = await createUserGroup({
        organizationId: principal.organizationId,
        ...body,
        createdBy: principal.id,
      });
      return {
        body: { userGroup: presentGroup(group) },
        headers: { location: routeUrl(userGroupsRoutes.getUserGroup, { id: group.id }) },
      };
    },

    listUserGroups: async ({ query }, { principal }) => {
      const [{ groups, hasMore, nextAfter }, archived] = await Promise.all([
        listUserGroups(principal.organizationId, query.page, query.pageSize, query.after),
        archivedIds(principal.organizationId),
      ]);
      return {
        body: { userGroups: groups.map((group) => presentGroup(group, archived)) },
        ...(hasMore ? { headers: nextPageLink(userGroupsRoutes.listUserGroups, query, nextAfter) } : {}),
      };
    },

    countUserGroups: async (_input, { principal }) => ({
      body: { count: await countUserGroups(principal.organizationId) },
    }),

    getUserGroup: ({ path }, { principal }) =>
      withArchived(principal.organizationId, requireUserGroup(principal.organizationId, path.id)),

    updateUserGroup: ({ path, body }, { principal }) =>
      withArchived(
        principal.organizationId,
        // Activating a group gives its members its roles again.
        updateUserGroup(principal.organizationId, path.id, body, principal.id, (group) =>
          requireGroupGrantsWithinCaller(principal, group, 'Activating this user group'),
        ),
      ),

    deleteUserGroup: async ({ path }, { principal }) => {
      await deleteUserGroup(principal.organizationId, path.id);
      return {};
    },

    duplicateUserGroup: ({ path }, { principal }) =>
      withArchived(
        principal.organizationId,
        // An active copy gives the source's members its roles through a group of its own.
        duplicateUserGroup(principal.organizationId, path.id, principal.id, (source) =>
          requireGroupGrantsWithinCaller(principal, source, 'Duplicating this user group'),
        ),
      ),

    assignUserGroupRole: changeGrant('roles', 'ADD'),
    unassignUserGroupRole: changeGrant('roles', 'DELETE'),
    assignUserGroupPolicy: changeGrant('policies', 'ADD'),
    unassignUserGroupPolicy: changeGrant('policies', 'DELETE'),
    assignUserGroupManagedRole: changeGrant('managedRoles', 'ADD'),
    unassignUserGroupManagedRole: changeGrant('managedRoles', 'DELETE'),
  },
  { admission, registeredOrigin: isRegisteredOrigin, idempotency },
);
