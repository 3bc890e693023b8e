import { type EffectiveAccess, effectiveAccess, type GrantedIds } from '../domain/effective-permissions.js';
import { currentAccessVersions } from '../store/access-versions.js';
import { batchGetByKey } from '../store/batch.js';
import { currentPermissionDependencies } from '../store/catalogue-repository.js';
import { ManagedRoleEntity, PolicyEntity, RoleEntity } from '../store/entities.js';
import { definedPluginActions } from '../store/plugin-actions.js';

/**
 * What the granted ids amount to. Reads every role, managed role and policy in one BatchGetItem
 * (100 keys per call, chunks in parallel) while the cached dependency graph, and the access
 * versions that say whether it is still current, load beside it.
 */
export const resolveAccess = async (
  orgId: string,
  ids: GrantedIds,
  now = Date.now(),
): Promise<EffectiveAccess> => {
  const roleKeys = ids.roleIds.map((id) => RoleEntity.key({ organizationId: orgId, id }));
  const managedRoleKeys = ids.managedRoleIds.map((id) => ManagedRoleEntity.key({ id }));
  const policyKeys = ids.policyIds.map((id) => PolicyEntity.key({ organizationId: orgId, id }));
  const [read, dependencies, versions] = await Promise.all([
    batchGetByKey([...roleKeys, ...managedRoleKeys, ...policyKeys]),
    currentPermissionDependencies(orgId, now),
    // The read the dependency graph waits for already: the same promise, no second request.
    currentAccessVersions(orgId, now),
  ]);
  /** id -> decoded item, for the ids that resolve to an item. */
  const found = <T>(
    idList: readonly string[],
    itemKeys: typeof roleKeys,
    decode: (item: Record<string, unknown>) => T,
  ) =>
    new Map(
      idList.flatMap((id, index) => {
        const item = read.get(itemKeys[index] as (typeof roleKeys)[number]);
        return item ? [[id, decode(item)] as const] : [];
      }),
    );
  const roles = found(ids.roleIds, roleKeys, RoleEntity.decode);
  const managedRoles = found(ids.managedRoleIds, managedRoleKeys, ManagedRoleEntity.decode);
  const pluginIds = new Set(
    [...roles.values(), ...managedRoles.values()].flatMap((role) =>
      Object.keys(role.pluginPermissions ?? {}),
    ),
  );
  return effectiveAccess(
    ids,
    {
      roles,
      managedRoles,
      policies: found(ids.policyIds, policyKeys, PolicyEntity.decode),
      // Cached: a BatchGet only for plugins this instance has not read since the last redefinition.
      pluginActions: await definedPluginActions([...pluginIds], versions.system, now),
    },
    dependencies,
  );
};
