import {
  type EffectiveAccess,
  effectiveAccess,
  type GrantedIds,
  type RoleGrant,
} from '../domain/effective-permissions.js';
import { batchGet } from '../store/batch.js';
import { permissionDependencies } from '../store/catalogue-repository.js';
import { type ItemKey, keys } from '../store/keys.js';

const keyString = (key: ItemKey) => `${key.pk}|${key.sk}`;

const toRoleGrant = (item: Record<string, unknown>): RoleGrant => ({
  // Roles store a string set, managed roles a list.
  permissions: [...((item.permissions as Iterable<string> | undefined) ?? [])],
  pluginPermissions: (item.pluginPermissions as RoleGrant['pluginPermissions']) ?? {},
  archived: item.archived === true,
});

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
    else resolved[entry.kind === 'role' ? 'roles' : 'managedRoles'].set(entry.id, toRoleGrant(item));
  }
  return effectiveAccess(ids, resolved, dependencies);
};
