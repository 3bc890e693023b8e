import type { Grant } from '../domain/effective-permissions.js';
import { batchGet } from '../store/batch.js';
import { keys } from '../store/keys.js';

/**
 * Reads the roles, managed roles and policies a principal was granted, in one BatchGetItem, and
 * answers what still counts: role grants (archived ones marked, so they grant nothing) and the ids
 * of live policies. Users and API clients go through the same rules.
 */
export const resolveGrants = async (
  orgId: string,
  ids: { roleIds: Iterable<string>; managedRoleIds?: Iterable<string>; policyIds: Iterable<string> },
): Promise<{ roles: Grant[]; policyIds: string[] }> => {
  const policyKeys = [...new Set(ids.policyIds)].map((id) => keys.policy(orgId, id));
  const policySortKeys = new Set(policyKeys.map((key) => key.sk));
  const items = await batchGet([
    ...[...new Set(ids.roleIds)].map((id) => keys.role(orgId, id)),
    ...[...new Set(ids.managedRoleIds ?? [])].map((id) => keys.managedRole(id)),
    ...policyKeys,
  ]);
  const isPolicy = (item: Record<string, unknown>) =>
    item.pk === keys.organizationPartition(orgId) && policySortKeys.has(String(item.sk));
  return {
    roles: items.filter((item) => !isPolicy(item)) as unknown as Grant[],
    policyIds: items
      .filter((item) => isPolicy(item) && item.archived !== true)
      .map((item) => String(item.id))
      .sort(),
  };
};
