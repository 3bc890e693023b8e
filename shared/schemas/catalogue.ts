import { MAX_PERMISSIONS_PER_ROLE, MAX_PLUGIN_PERMISSION_DEFINITIONS } from '../domain/limits.js';
import * as z from '../zod.js';
import { catalogueWord, permissionId, pluginAction } from './catalogue-names.js';
import { epochMillis, identifier } from './common.js';
import { freeText, oneLine } from './text.js';

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

const OBJECT_MEMBER_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/**
 * A new plugin's id (operator CLI): it keys the maps of roles' grants and tokens' claims, so never
 * the name of a member every JavaScript object has (`constructor`, `toString`, ...), which a plain
 * lookup, and the DynamoDB marshaller, would take for that member.
 */
export const newPluginId = identifier.check(
  z.refine(
    (id) => !OBJECT_MEMBER_NAMES.has(id),
    'Not allowed as a plugin id (a name every JavaScript object has)',
  ),
);

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
