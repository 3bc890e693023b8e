import * as z from 'zod';
import {
  MAX_PERMISSIONS_PER_ROLE,
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../domain/limits.js';
import { permissionId, pluginAction } from './catalogue.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

/**
 * Permission ids, in requests and answers: a role holds only catalogue permissions (the handler
 * checks requests against it), and the catalogue stays within the limit.
 */
const permissionIds = z.array(permissionId).max(MAX_PERMISSIONS_PER_ROLE);
const roleName = oneLine(200);

export const rolePluginPermission = z
  .strictObject({ module: pluginAction, actionName: pluginAction })
  .meta({ id: 'RoleSinglePluginPermission' });
export type RolePluginPermission = z.infer<typeof rolePluginPermission>;

/** A role's permissions of one plugin: some of the plugin's definitions. */
const pluginPermissionList = z.array(rolePluginPermission).max(MAX_PLUGIN_PERMISSION_DEFINITIONS);

export const role = z
  .strictObject({
    id: identifier,
    name: roleName,
    permissions: permissionIds,
    dependentPermissions: permissionIds,
    pluginPermissions: z.strictObject({ id: identifier, pluginPermissions: pluginPermissionList }),
    createdAt: epochMillis,
    updatedAt: epochMillis,
  })
  .meta({ id: 'Role' });
export type Role = z.infer<typeof role>;

export const newRoleRequest = z
  .strictObject({ name: roleName, permissions: permissionIds })
  .meta({ id: 'NewRoleRequest' });

export const updateRoleRequest = z
  .strictObject({ permissions: permissionIds })
  .meta({ id: 'UpdateRoleRequest' });

export const assignRevokeRolePermissionRequest = z
  .strictObject({ permissionIds })
  .meta({ id: 'AssignRevokeRolePermissionRequest' });

export const pluginPermissionsRequest = pluginPermissionList.meta({ id: 'PluginPermissionsRequest' });

export const assignRevokeRolePluginPermissionRequest = z
  .strictObject({ pluginPermissions: pluginPermissionList })
  .meta({ id: 'AssignRevokeRolePluginPermissionRequest' });

export const rolePluginPermissionIds = z
  .strictObject({ pluginPermissions: z.array(identifier).max(MAX_PLUGIN_PERMISSION_DEFINITIONS) })
  .meta({
    id: 'RolePluginPermissionIds',
    description: "Ids of the plugin's permission definitions the role holds",
  });

export const managedRole = z
  .strictObject({
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
            .max(MAX_PLUGIN_PERMISSION_DEFINITIONS),
        }),
      )
      .max(MAX_PLUGINS_PER_ORGANIZATION),
  })
  .meta({ id: 'ManagedRole' });

export const defaultRoleResponse = z
  .strictObject({ isStandardRole: z.boolean().nullable(), roleId: identifier.optional() })
  .meta({ id: 'DefaultRoleResponse' });

export const defaultRoleRequest = z
  .strictObject({ roleId: identifier.meta({ description: 'A role id or a managed role id' }) })
  .meta({ id: 'DefaultRoleRequest' });

export const rolePluginPathParams = z.strictObject({ id: identifier, pluginId: identifier });

const policyName = oneLine(200);

export const policy = z.strictObject({ id: identifier, name: policyName }).meta({ id: 'Policy' });

export const policyRequest = z.strictObject({ name: policyName }).meta({ id: 'PolicyRequest' });
