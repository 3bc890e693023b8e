import { permissionsRoutes } from '../shared/api/routes/permissions.js';
import { NotFound } from '../shared/domain/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import {
  getPermission,
  listPermissions,
  type StoredPermission,
} from '../shared/store/catalogue-repository.js';
import { getAssignedPlugin, listAssignedPluginIds } from '../shared/store/plugin-repository.js';

const presentPermission = (permission: StoredPermission) => ({
  id: permission.id,
  module: permission.module,
  accessType: permission.accessType,
  moduleDisplayName: permission.moduleDisplayName,
  accessTypeDisplayName: permission.accessTypeDisplayName,
});

/** Permission catalogue and plugins (spec 4.4). */
export const handler = groupHandler(
  permissionsRoutes,
  {
    listPermissions: async () => ({ body: (await listPermissions()).map(presentPermission) }),

    getPermission: async ({ path }) => {
      const permission = await getPermission(path.id);
      if (!permission) throw new NotFound('Permission', path.id);
      return { body: presentPermission(permission) };
    },

    listDependentPermissions: async () => ({
      body: (await listPermissions())
        .filter((permission) => permission.dependsOn.length > 0)
        .map((permission) => ({ permissionId: permission.id, dependentPermissionIds: permission.dependsOn })),
    }),

    listPlugins: async (_input, { principal }) => ({
      body: (await listAssignedPluginIds(principal.organizationId)).map((id) => ({ id })),
    }),

    getPlugin: async ({ path }, { principal }) => {
      const plugin = await getAssignedPlugin(principal.organizationId, path.id);
      if (!plugin) throw new NotFound('Plugin', path.id);
      return {
        body: {
          id: plugin.id,
          createdAt: plugin.createdAt,
          updatedAt: plugin.updatedAt,
          permissionDefinitions: plugin.permissionDefinitions,
          dependentPermissions: plugin.dependentPermissions,
        },
      };
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin },
);
