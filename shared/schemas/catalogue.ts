import {
  MAX_PERMISSIONS_PER_ROLE,
  MAX_PLUGIN_PERMISSION_DEFINITIONS,
  MAX_PLUGINS_PER_ORGANIZATION,
} from '../domain/limits.js';
import * as z from '../zod.js';
import { epochMillis, identifier } from './common.js';
import { freeText, oneLine } from './text.js';

/**
 * `MODULE.ACCESSTYPE` (`USER.LIST`) in the catalogue; a plugin's definition ids in its dependencies.
 * Requests may name any identifier: the handler names each unknown one.
 */
export const permissionId = identifier.check(z.maxLength(100));

/** A plugin permission's module or action name, as its plugin's definitions file writes it. */
export const pluginAction = identifier.check(z.maxLength(200));

const catalogueWord = z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[A-Z][A-Z0-9_]*$/));

export const permission = z.withMeta(
  z.strictObject({
    id: permissionId,
    module: catalogueWord,
    accessType: catalogueWord,
    moduleDisplayName: oneLine(100),
    accessTypeDisplayName: oneLine(100),
  }),
  { id: 'Permission' },
);
export type Permission = z.infer<typeof permission>;

const permissionIds = z.array(permissionId).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE));

export const dependentPermissions = z.withMeta(
  z.strictObject({ permissionId, dependentPermissionIds: permissionIds }),
  { id: 'DependentPermissions' },
);
export type DependentPermissions = z.infer<typeof dependentPermissions>;

export const pluginIdModel = z.withMeta(z.strictObject({ id: identifier }), { id: 'PluginIdModel' });

export const pluginPermissionDefinition = z.withMeta(
  z.strictObject({
    module: pluginAction,
    actionName: pluginAction,
    description: freeText(2000),
    id: identifier,
  }),
  { id: 'PluginPermissionDefinition' },
);
export type PluginPermissionDefinition = z.infer<typeof pluginPermissionDefinition>;

export const detailedPlugin = z.withMeta(
  z.strictObject({
    id: identifier,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    permissionDefinitions: z
      .array(pluginPermissionDefinition)
      .check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS)),
    dependentPermissions: z.array(dependentPermissions).check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS)),
  }),
  { id: 'DetailedPlugin' },
);
export type DetailedPlugin = z.infer<typeof detailedPlugin>;

export const minePermissions = z.withMeta(
  z.strictObject({
    uiPermissions: z.withMeta(z.array(catalogueWord).check(z.maxLength(MAX_PERMISSIONS_PER_ROLE)), {
      description: 'Access types of the UI module the caller holds',
    }),
    pluginsUIPermissions: z.withMeta(
      z.record(identifier, z.array(pluginAction).check(z.maxLength(MAX_PLUGIN_PERMISSION_DEFINITIONS))),
      { maxProperties: MAX_PLUGINS_PER_ORGANIZATION, description: 'Plugin id -> action names' },
    ),
  }),
  { id: 'MinePermissions' },
);
export type MinePermissions = z.infer<typeof minePermissions>;
