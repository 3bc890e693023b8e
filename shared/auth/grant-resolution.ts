import { type EffectiveAccess, effectiveAccess, type GrantedIds } from '../domain/effective-permissions.js';
import { batchGetByKey } from '../store/batch.js';
import { currentPermissionDependencies } from '../store/catalogue-repository.js';
import { ManagedRoleEntity, PolicyEntity, RoleEntity } from '../store/entities.js';

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
  const [read, dependencies] = await Promise.all([
    batchGetByKey([...roleKeys, ...managedRoleKeys, ...policyKeys]),
    currentPermissionDependencies(orgId, now),
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
  return effectiveAccess(
    ids,
    {
      roles: found(ids.roleIds, roleKeys, RoleEntity.decode),
      managedRoles: found(ids.managedRoleIds, managedRoleKeys, ManagedRoleEntity.decode),
      policies: found(ids.policyIds, policyKeys, PolicyEntity.decode),
    },
    dependencies,
  );
};
