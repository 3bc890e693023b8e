import { InvalidReference, NotFound } from '../domain/errors.js';
import type { RolePluginPermission } from '../schemas/roles.js';
import { batchGetByKey } from './batch.js';
import { type PluginGrant, RoleEntity, type RoleRecord } from './entities.js';
import { assignedPluginIn, assignedPluginKeys, type PluginDefinition } from './plugin-repository.js';
import { pluginGrantsOf, setRolePluginGrants } from './role-repository.js';
import { retryOnConcurrentChange } from './writes.js';

/**
 * The role and the plugin's definition, in one BatchGet: NotFound for an unknown or archived role,
 * and for a plugin that is unknown or not assigned to the organization.
 */
export const rolePluginContext = async (orgId: string, roleId: string, pluginId: string) => {
  const roleKey = RoleEntity.key({ organizationId: orgId, id: roleId });
  const read = await batchGetByKey([roleKey, ...assignedPluginKeys(orgId, pluginId)]);
  const item = read.get(roleKey);
  const role = item && RoleEntity.decode(item);
  if (!role || role.archived) throw new NotFound('Role', roleId);
  const plugin = assignedPluginIn(read, orgId, pluginId);
  if (!plugin) throw new NotFound('Plugin', pluginId);
  return { role, plugin };
};

const sameAction = (a: RolePluginPermission, b: RolePluginPermission) =>
  a.module === b.module && a.actionName === b.actionName;

/**
 * The definitions the request names; any the plugin does not define is refused, by position,
 * but for those in `alsoKnown` (grants a role holds of an action the plugin no longer defines,
 * which may still be revoked).
 */
export const matchDefinitions = (
  plugin: PluginDefinition,
  requested: readonly RolePluginPermission[],
  field: string,
  alsoKnown: readonly PluginGrant[] = [],
): PluginGrant[] => {
  const unknown = requested
    .map((permission, index) => ({ permission, index }))
    .filter(
      ({ permission }) =>
        ![...plugin.permissionDefinitions, ...alsoKnown].some((known) => sameAction(known, permission)),
    );
  if (unknown.length > 0) {
    throw new InvalidReference(
      `Plugin ${plugin.id} defines no such permission`,
      unknown.map(({ permission, index }) => ({
        message: 'No permission definition of the plugin has this module and actionName',
        field: field ? `${field}.${index}` : String(index),
        rejectedValue: permission,
      })),
    );
  }
  return [...plugin.permissionDefinitions, ...alsoKnown]
    .filter((known) => requested.some((permission) => sameAction(known, permission)))
    .map(({ id, module, actionName }) => ({ id, module, actionName }));
};

export type PluginGrantChange = 'set' | 'assign' | 'revoke';

const applyChange = (
  current: readonly PluginGrant[],
  matched: readonly PluginGrant[],
  change: PluginGrantChange,
) => {
  if (change === 'set') return [...matched];
  // By action as well as id: a grant of an action since dropped or moved to another id goes too.
  const others = current.filter(
    (grant) => !matched.some((match) => match.id === grant.id || sameAction(match, grant)),
  );
  return change === 'assign' ? [...others, ...matched] : others;
};

/**
 * Sets, adds or removes a role's permissions of one plugin (optimistic, retried on a race);
 * `field` names the requested list in the caller's input ('' when the input is the list).
 */
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
    const current = pluginGrantsOf(role, pluginId);
    const matched = matchDefinitions(plugin, requested, field, change === 'revoke' ? current : []);
    const next = applyChange(current, matched, change).sort((a, b) => a.id.localeCompare(b.id));
    await setRolePluginGrants(role, pluginId, next);
  });

export const rolePluginGrantIds = (role: RoleRecord, pluginId: string): string[] =>
  pluginGrantsOf(role, pluginId)
    .map((grant) => grant.id)
    .sort();
