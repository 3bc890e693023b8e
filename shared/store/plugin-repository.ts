import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DependentPermissions, PluginPermissionDefinition } from '../schemas/catalogue.js';
import { batchGet } from './batch.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';

export interface PluginDefinition {
  id: string;
  createdAt: number;
  updatedAt: number;
  permissionDefinitions: PluginPermissionDefinition[];
  dependentPermissions: DependentPermissions[];
}

/** Plugin definitions are system data (operator CLI); re-defining keeps the creation date. */
export const definePlugin = async (
  definition: Omit<PluginDefinition, 'createdAt' | 'updatedAt'>,
  now = Date.now(),
): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.pluginDefinition(definition.id), ...definition, createdAt: now, updatedAt: now },
    }),
  );
};

export const assignPlugin = async (orgId: string, pluginId: string, now = Date.now()): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.pluginAssignment(orgId, pluginId), pluginId, assignedAt: now },
    }),
  );
};

/** Ids of the plugins assigned to the organization, in id order (one Query). */
export const listAssignedPluginIds = async (orgId: string): Promise<string[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.pluginAssignmentPrefix)).map((item) =>
    String(item.pluginId),
  );

const findItem = (items: Record<string, unknown>[], key: { pk: string; sk: string }) =>
  items.find((item) => item.pk === key.pk && item.sk === key.sk);

/** The keys that tell whether a plugin is assigned and what it defines, to read with others. */
export const assignedPluginKeys = (orgId: string, pluginId: string) => [
  keys.pluginAssignment(orgId, pluginId),
  keys.pluginDefinition(pluginId),
];

/** From items read with `assignedPluginKeys`: the definition, when the plugin is assigned. */
export const assignedPluginIn = (
  items: Record<string, unknown>[],
  orgId: string,
  pluginId: string,
): PluginDefinition | undefined => {
  const definition = findItem(items, keys.pluginDefinition(pluginId));
  return findItem(items, keys.pluginAssignment(orgId, pluginId)) && definition
    ? (definition as unknown as PluginDefinition)
    : undefined;
};

/** The plugin's definition when the plugin is assigned to the organization (one BatchGet). */
export const getAssignedPlugin = async (orgId: string, pluginId: string) =>
  assignedPluginIn(await batchGet(assignedPluginKeys(orgId, pluginId)), orgId, pluginId);
