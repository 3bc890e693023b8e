import { type EffectiveAccess, effectiveAccess, type GrantedIds } from '../domain/effective-permissions.js';
import { batchGet } from '../store/batch.js';
import { permissionDependencies } from '../store/catalogue-repository.js';
import { type ItemKey, keys } from '../store/keys.js';
import { roleGrantOf } from '../store/role-repository.js';

const keyString = (key: ItemKey) => `${key.pk}|${key.sk}`;

/**
 * What the granted ids amount to. Reads every role, managed role and policy in one BatchGetItem
 * (100 keys per call, chunks in parallel) while the cached dependency graph loads beside it.
 */
export const resolveAccess = async (orgId: string, ids: GrantedIds): Promise<EffectiveAccess> => {
  const wanted = [
    ...ids.roleIds.map((id) => ({ kind: 'role' as const, id, key: keys.role(orgId, id) })),
    ...ids.managedRoleIds.map((id) => ({ kind: 'managedRole' as const, id, key: keys.managedRole(id) })),
    ...ids.policyIds.map((id) => ({ kind: 'policy' as const, id, key: keys.policy(orgId, id) })),
  ];
  const [items, dependencies] = await Promise.all([
    batchGet(wanted.map((entry) => entry.key)),
    permissionDependencies(),
  ]);
  const found = new Map(items.map((item) => [keyString(item as ItemKey), item]));
  const resolved = { roles: new Map(), managedRoles: new Map(), policies: new Map() };
  for (const entry of wanted) {
    const item = found.get(keyString(entry.key));
    if (!item) continue;
    if (entry.kind === 'policy') resolved.policies.set(entry.id, { archived: item.archived === true });
    else resolved[entry.kind === 'role' ? 'roles' : 'managedRoles'].set(entry.id, roleGrantOf(item));
  }
  return effectiveAccess(ids, resolved, dependencies);
};
