import * as z from 'zod';
import {
  MAX_PERMISSIONS_PER_ROLE,
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../domain/limits.js';
import { epochMillis, identifier } from './common.js';
import { freeText, oneLine } from './text.js';

/**
 * `MODULE.ACCESSTYPE` (`USER.LIST`) in the catalogue; a plugin's definition ids in its dependencies.
 * Requests may name any identifier: the handler names each unknown one.
 */
export const permissionId = identifier.max(100);

/** A plugin permission's module or action name, as its plugin's definitions file writes it. */
export const pluginAction = identifier.max(200);

const catalogueWord = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Z][A-Z0-9_]*$/);

export const permission = z
  .strictObject({
    id: permissionId,
    module: catalogueWord,
    accessType: catalogueWord,
    moduleDisplayName: oneLine(100),
    accessTypeDisplayName: oneLine(100),
  })
  .meta({ id: 'Permission' });
export type Permission = z.infer<typeof permission>;

const permissionIds = z.array(permissionId).max(MAX_PERMISSIONS_PER_ROLE);

export const dependentPermissions = z
  .strictObject({ permissionId, dependentPermissionIds: permissionIds })
  .meta({ id: 'DependentPermissions' });
export type DependentPermissions = z.infer<typeof dependentPermissions>;

export const pluginIdModel = z.strictObject({ id: identifier }).meta({ id: 'PluginIdModel' });

export const pluginPermissionDefinition = z
  .strictObject({
    module: pluginAction,
    actionName: pluginAction,
    description: freeText(2000),
    id: identifier,
  })
  .meta({ id: 'PluginPermissionDefinition' });
export type PluginPermissionDefinition = z.infer<typeof pluginPermissionDefinition>;

export const detailedPlugin = z
  .strictObject({
    id: identifier,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    permissionDefinitions: z.array(pluginPermissionDefinition).max(MAX_PLUGIN_PERMISSION_DEFINITIONS),
    dependentPermissions: z.array(dependentPermissions).max(MAX_PLUGIN_PERMISSION_DEFINITIONS),
  })
  .meta({ id: 'DetailedPlugin' });
export type DetailedPlugin = z.infer<typeof detailedPlugin>;

export const minePermissions = z
  .strictObject({
    uiPermissions: z
      .array(catalogueWord)
      .max(MAX_PERMISSIONS_PER_ROLE)
      .meta({ description: 'Access types of the UI module the caller holds' }),
    pluginsUIPermissions: z
      .record(identifier, z.array(pluginAction).max(MAX_PLUGIN_PERMISSION_DEFINITIONS))
      .meta({ maxProperties: MAX_PLUGINS_PER_ORGANIZATION, description: 'Plugin id -> action names' }),
  })
  .meta({ id: 'MinePermissions' });
export type MinePermissions = z.infer<typeof minePermissions>;
