import {
  MAX_PERMISSIONS_PER_ROLE,
  MAX_PLUGIN_GRANTS_ANSWERED,
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../domain/limits.js';
import * as z from '../zod.js';
import { permissionId, pluginAction } from './catalogue-names.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

/**
 * Permission ids, in requests and answers: a role holds only catalogue permissions (the handler
 * checks requests against it), and the catalogue stays within the limit.
 */
const permissionIds = z.array(permissionId).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE));
const roleName = oneLine(200);
/**
 * A new role's name may not look like a role id (a UUID): grants and revokes name a role by name
 * first, then by id (DECISIONS.md), so a role named after another's id would take its grants and
 * revokes.
 */
const ROLE_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const newRoleName = oneLine(200).check(
  z.refine((name) => !ROLE_ID_SHAPE.test(name), 'Must not have the shape of a role id (a UUID)'),
);

export const rolePluginPermission = z.withMeta(
  z.strictObject({ module: pluginAction, actionName: pluginAction }),
  { id: 'RoleSinglePluginPermission' },
);
export type RolePluginPermission = z.infer<typeof rolePluginPermission>;

/** A role's permissions of one plugin: some of the plugin's definitions. */
const pluginPermissionList = z
  .array(rolePluginPermission)
  .check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS));

/**
 * All of a role's plugin permissions, across its plugins: at most MAX_PLUGIN_GRANTS_PER_ROLE
 * since that limit, more for a role written before it.
 */
const allPluginPermissions = z.array(rolePluginPermission).check(z.maxLength(MAX_PLUGIN_GRANTS_ANSWERED));

export const role = z.withMeta(
  z.strictObject({
    id: identifier,
    name: roleName,
    permissions: permissionIds,
    dependentPermissions: permissionIds,
    pluginPermissions: z.strictObject({ id: identifier, pluginPermissions: allPluginPermissions }),
    createdAt: epochMillis,
    updatedAt: epochMillis,
  }),
  { id: 'Role' },
);
export type Role = z.infer<typeof role>;

export const newRoleRequest = z.withMeta(z.strictObject({ name: newRoleName, permissions: permissionIds }), {
  id: 'NewRoleRequest',
});

export const updateRoleRequest = z.withMeta(z.strictObject({ permissions: permissionIds }), {
  id: 'UpdateRoleRequest',
});

export const assignRevokeRolePermissionRequest = z.withMeta(z.strictObject({ permissionIds }), {
  id: 'AssignRevokeRolePermissionRequest',
});

export const pluginPermissionsRequest = z.withMeta(pluginPermissionList, { id: 'PluginPermissionsRequest' });

export const assignRevokeRolePluginPermissionRequest = z.withMeta(
  z.strictObject({ pluginPermissions: pluginPermissionList }),
  { id: 'AssignRevokeRolePluginPermissionRequest' },
);

export const rolePluginPermissionIds = z.withMeta(
  z.strictObject({
    pluginPermissions: z.array(identifier).check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS)),
  }),
  {
    id: 'RolePluginPermissionIds',
    description: "Ids of the plugin's permission definitions the role holds",
  },
);

export const managedRole = z.withMeta(
  z.strictObject({
    id: identifier,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    permissions: permissionIds,
    pluginPermissions: z
      .array(
        z.strictObject({
          id: identifier,
          pluginPermissions: z
            .array(z.strictObject({ actionName: pluginAction, module: pluginAction }))
            .check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS)),
        }),
      )
      .check(z.maxLength(MAX_PLUGINS_PER_ORGANIZATION)),
  }),
  { id: 'ManagedRole' },
);

export const defaultRoleResponse = z.withMeta(
  z.strictObject({ isStandardRole: z.nullable(z.boolean()), roleId: z.optional(identifier) }),
  { id: 'DefaultRoleResponse' },
);

export const defaultRoleRequest = z.withMeta(
  z.strictObject({ roleId: z.withMeta(identifier, { description: 'A role id or a managed role id' }) }),
  { id: 'DefaultRoleRequest' },
);

export const rolePluginPathParams = z.strictObject({ id: identifier, pluginId: identifier });

const policyName = oneLine(200);

export const policy = z.withMeta(z.strictObject({ id: identifier, name: policyName }), { id: 'Policy' });

export const policyRequest = z.withMeta(z.strictObject({ name: policyName }), { id: 'PolicyRequest' });
