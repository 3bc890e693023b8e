import * as z from 'zod';
import { epochMillis } from './common.js';

export const permission = z
  .strictObject({
    id: z.string(),
    module: z.string(),
    accessType: z.string(),
    moduleDisplayName: z.string(),
    accessTypeDisplayName: z.string(),
  })
  .meta({ id: 'Permission' });
export type Permission = z.infer<typeof permission>;

export const dependentPermissions = z
  .strictObject({ permissionId: z.string(), dependentPermissionIds: z.array(z.string()) })
  .meta({ id: 'DependentPermissions' });
export type DependentPermissions = z.infer<typeof dependentPermissions>;

export const pluginIdModel = z.strictObject({ id: z.string() }).meta({ id: 'PluginIdModel' });

export const pluginPermissionDefinition = z
  .strictObject({ module: z.string(), actionName: z.string(), description: z.string(), id: z.string() })
  .meta({ id: 'PluginPermissionDefinition' });
export type PluginPermissionDefinition = z.infer<typeof pluginPermissionDefinition>;

export const detailedPlugin = z
  .strictObject({
    id: z.string(),
    createdAt: epochMillis,
    updatedAt: epochMillis,
    permissionDefinitions: z.array(pluginPermissionDefinition),
    dependentPermissions: z.array(dependentPermissions),
  })
  .meta({ id: 'DetailedPlugin' });
export type DetailedPlugin = z.infer<typeof detailedPlugin>;

export const minePermissions = z
  .strictObject({
    uiPermissions: z.array(z.string()),
    pluginsUIPermissions: z.record(z.string(), z.array(z.string())),
  })
  .meta({ id: 'MinePermissions' });
export type MinePermissions = z.infer<typeof minePermissions>;
