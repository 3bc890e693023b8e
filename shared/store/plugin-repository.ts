import type { z } from 'zod';
import { batchGetByKey, type ItemsByKey } from './batch.js';
import { PluginAssignmentEntity, PluginDefinitionEntity } from './entities.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { put, writeOne } from './writes.js';

export type PluginDefinition = z.output<typeof PluginDefinitionEntity.attributes>;

/** Plugin definitions are system data (operator CLI). */
export const definePlugin = async (
  definition: Omit<PluginDefinition, 'createdAt' | 'updatedAt'>,
  now = Date.now(),
): Promise<void> => {
  await writeOne(
    put(PluginDefinitionEntity.item(definition, { ...definition, createdAt: now, updatedAt: now })),
  );
};

export const assignPlugin = async (orgId: string, pluginId: string, now = Date.now()): Promise<void> => {
  await writeOne(
    put(PluginAssignmentEntity.item({ organizationId: orgId, pluginId }, { pluginId, assignedAt: now })),
  );
};

/** Ids of the plugins assigned to the organization, in id order (one Query). */
export const listAssignedPluginIds = async (orgId: string): Promise<string[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.pluginAssignmentPrefix)).map(
    (item) => PluginAssignmentEntity.decode(item).pluginId,
  );

/** The keys that tell whether a plugin is assigned and what it defines, to read with others. */
export const assignedPluginKeys = (orgId: string, pluginId: string) => [
  PluginAssignmentEntity.key({ organizationId: orgId, pluginId }),
  PluginDefinitionEntity.key({ id: pluginId }),
];

/** From items read with `assignedPluginKeys`: the definition, when the plugin is assigned. */
export const assignedPluginIn = (
  read: ItemsByKey,
  orgId: string,
  pluginId: string,
): PluginDefinition | undefined => {
  const [assignment, definition] = assignedPluginKeys(orgId, pluginId).map((key) => read.get(key));
  return assignment && definition ? PluginDefinitionEntity.decode(definition) : undefined;
};

/** The plugin's definition when the plugin is assigned to the organization (one BatchGet). */
export const getAssignedPlugin = async (orgId: string, pluginId: string) =>
  assignedPluginIn(await batchGetByKey(assignedPluginKeys(orgId, pluginId)), orgId, pluginId);
