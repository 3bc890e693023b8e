import { badRequest, notFound } from '../http/errors.js';
import type { RolePluginPermission } from '../schemas/roles.js';
import { batchGet } from './batch.js';
import { keys } from './keys.js';
import { assignedPluginIn, assignedPluginKeys, type PluginDefinition } from './plugin-repository.js';
import { type PluginGrant, type RoleRecord, setRolePluginGrants, toRoleRecord } from './role-repository.js';
import { retryOnConcurrentChange } from './transactions.js';

/**
 * The role and the plugin's definition, in one BatchGet: 404 for an unknown or archived role, and
 * for a plugin that is unknown or not assigned to the organization.
 */
export const rolePluginContext = async (orgId: string, roleId: string, pluginId: string) => {
  const roleKey = keys.role(orgId, roleId);
  const items = await batchGet([roleKey, ...assignedPluginKeys(orgId, pluginId)]);
  const role = items.find((item) => item.pk === roleKey.pk && item.sk === roleKey.sk);
  if (!role || role.archived === true) throw notFound('Role');
  const plugin = assignedPluginIn(items, orgId, pluginId);
  if (!plugin) throw notFound('Plugin');
  return { role: toRoleRecord(role), plugin };
};

/** The definitions the request names; any that the plugin does not define is a 400. */
export const matchDefinitions = (
  plugin: PluginDefinition,
  requested: readonly RolePluginPermission[],
  field: string,
): PluginGrant[] => {
  const unknown = requested
    .map((permission, index) => ({ permission, index }))
    .filter(
      ({ permission }) =>
        !plugin.permissionDefinitions.some(
          (definition) =>
            definition.module === permission.module && definition.actionName === permission.actionName,
        ),
    );
  if (unknown.length > 0) {
    throw badRequest(
      `Plugin ${plugin.id} defines no such permission`,
      unknown.map(({ permission, index }) => ({
        message: 'No permission definition of the plugin has this module and actionName',
        field: `${field}.${index}`,
        rejectedValue: permission,
      })),
    );
  }
  return plugin.permissionDefinitions
    .filter((definition) =>
      requested.some(
        (permission) =>
          definition.module === permission.module && definition.actionName === permission.actionName,
      ),
    )
    .map(({ id, module, actionName }) => ({ id, module, actionName }));
};

export type PluginGrantChange = 'set' | 'assign' | 'revoke';

const applyChange = (
  current: readonly PluginGrant[],
  matched: readonly PluginGrant[],
  change: PluginGrantChange,
) => {
  const matchedIds = new Set(matched.map((grant) => grant.id));
  if (change === 'set') return [...matched];
  const others = current.filter((grant) => !matchedIds.has(grant.id));
  return change === 'assign' ? [...others, ...matched] : others;
};

/** Sets, adds or removes a role's permissions of one plugin (optimistic, retried on a race). */
export const changeRolePluginPermissions = (
  orgId: string,
  roleId: string,
  pluginId: string,
  requested: readonly RolePluginPermission[],
  change: PluginGrantChange,
  field: string,
) =>
  retryOnConcurrentChange(async () => {
    const { role, plugin } = await rolePluginContext(orgId, roleId, pluginId);
    const matched = matchDefinitions(plugin, requested, field);
    const current = role.pluginPermissions[pluginId] ?? [];
    const next = applyChange(current, matched, change).sort((a, b) => a.id.localeCompare(b.id));
    await setRolePluginGrants(role, pluginId, next);
  });

export const rolePluginGrantIds = (role: RoleRecord, pluginId: string): string[] =>
  (role.pluginPermissions[pluginId] ?? []).map((grant) => grant.id).sort();
