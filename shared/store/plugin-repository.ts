import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_PLUGINS_PER_ORGANIZATION } from '../domain/limits.js';
import type * as z from '../zod.js';
import { systemAccessVersionBump } from './access-versions.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey, type ItemsByKey } from './batch.js';
import { PluginAssignmentEntity, PluginDefinitionEntity } from './entities.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { create, put, transact, update } from './writes.js';

export type PluginDefinition = z.output<typeof PluginDefinitionEntity.attributes>;

/**
 * Plugin definitions are system data (operator CLI). A redefinition may drop actions roles were
 * given: tokens stop carrying them (grant-resolution.ts), so the system's access version moves.
 */
export const definePlugin = async (
  definition: Omit<PluginDefinition, 'createdAt' | 'updatedAt'>,
  now = Date.now(),
): Promise<void> => {
  await transact([
    put(PluginDefinitionEntity.item(definition, { ...definition, createdAt: now, updatedAt: now })),
    systemAccessVersionBump(),
  ]);
};

class AlreadyAssigned extends Error {}

/**
 * Assigns the plugin to the organization (operators), idempotently: one transaction creates the
 * assignment and counts it on the organization, as long as the organization has fewer than
 * MAX_PLUGINS_PER_ORGANIZATION (Conflict beyond), with the record of the change. A plugin
 * assigned already is left as it is, not counted again and not recorded again.
 */
export const assignPlugin = async (orgId: string, pluginId: string, now = Date.now()): Promise<void> => {
  try {
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'organization.updated',
          targets: [
            { type: 'organization', id: orgId },
            { type: 'plugin', id: pluginId },
          ],
          changes: { assignedPlugin: { from: null, to: pluginId } },
        },
        now,
      )),
      // First: at the limit, assigning an assigned plugin again is still a success.
      create(
        PluginAssignmentEntity.item({ organizationId: orgId, pluginId }, { pluginId, assignedAt: now }),
        () => new AlreadyAssigned(),
      ),
      update(
        keys.organization(orgId),
        {
          update: 'ADD #count :one',
          condition: 'attribute_exists(pk) AND (attribute_not_exists(#count) OR #count < :max)',
          names: { '#count': 'assignedPluginCount' },
          values: { ':one': 1, ':max': MAX_PLUGINS_PER_ORGANIZATION },
          seeItemOnFailure: true,
        },
        (organization) =>
          organization
            ? new Conflict(
                'Organization',
                `Organization ${orgId} has ${MAX_PLUGINS_PER_ORGANIZATION} plugins assigned already, ` +
                  'the most an organization may',
              )
            : new NotFound('Organization', orgId),
      ),
    ]);
  } catch (error) {
    if (!(error instanceof AlreadyAssigned)) throw error;
  }
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
