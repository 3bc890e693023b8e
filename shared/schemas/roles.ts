import * as z from 'zod';
import { epochMillis, identifier } from './common.js';

/** Permission ids in request bodies; whether they exist in the catalogue is checked by the handler. */
const permissionIds = z.array(z.string().min(1).max(100)).max(200);
const roleName = z.string().trim().min(1).max(200);

export const rolePluginPermission = z
  .strictObject({ module: z.string().min(1).max(200), actionName: z.string().min(1).max(200) })
  .meta({ id: 'RoleSinglePluginPermission' });
export type RolePluginPermission = z.infer<typeof rolePluginPermission>;

export const role = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    permissions: z.array(z.string()),
    dependentPermissions: z.array(z.string()),
    pluginPermissions: z.strictObject({ id: z.string(), pluginPermissions: z.array(rolePluginPermission) }),
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

const pluginPermissionList = z.array(rolePluginPermission).max(200);

export const pluginPermissionsRequest = pluginPermissionList.meta({ id: 'PluginPermissionsRequest' });

export const assignRevokeRolePluginPermissionRequest = z
  .strictObject({ pluginPermissions: pluginPermissionList })
  .meta({ id: 'AssignRevokeRolePluginPermissionRequest' });

export const rolePluginPermissionIds = z.strictObject({ pluginPermissions: z.array(z.string()) }).meta({
  id: 'RolePluginPermissionIds',
  description: "Ids of the plugin's permission definitions the role holds",
});

export const managedRole = z
  .strictObject({
    id: z.string(),
    createdAt: epochMillis,
    updatedAt: epochMillis,
    permissions: z.array(z.string()),
    pluginPermissions: z.array(
      z.strictObject({
        id: z.string(),
        pluginPermissions: z.array(z.strictObject({ actionName: z.string(), module: z.string() })),
      }),
    ),
  })
  .meta({ id: 'ManagedRole' });

export const defaultRoleResponse = z
  .strictObject({ isStandardRole: z.boolean().nullable(), roleId: z.string().optional() })
  .meta({ id: 'DefaultRoleResponse' });

export const defaultRoleRequest = z
  .strictObject({ roleId: identifier.meta({ description: 'A role id or a managed role id' }) })
  .meta({ id: 'DefaultRoleRequest' });

export const rolePluginPathParams = z.strictObject({ id: identifier, pluginId: identifier });

export const policy = z.strictObject({ id: z.string(), name: z.string() }).meta({ id: 'Policy' });

export const policyRequest = z
  .strictObject({ name: z.string().trim().min(1).max(200) })
  .meta({ id: 'PolicyRequest' });
