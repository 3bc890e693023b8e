/**
 * What a principal may do, from what it was granted. Pure: the caller reads the grants.
 *
 * Effective permissions = permissions of every live grant (roles, managed roles, and those of
 * ACTIVE user groups, flattened by the caller) plus their dependencies, transitively. Archived
 * grants give nothing.
 */
export interface Grant {
  permissions: readonly string[];
  /** pluginId -> action names */
  pluginPermissions?: Readonly<Record<string, readonly string[]>>;
  archived?: boolean;
}

export interface EffectivePermissions {
  permissions: string[];
  pluginPermissions: Record<string, string[]>;
}

/** Adds every transitive dependency; safe on cyclic dependency graphs. */
export const withDependencies = (
  permissionIds: Iterable<string>,
  dependencies: ReadonlyMap<string, readonly string[]>,
): Set<string> => {
  const result = new Set<string>();
  const pending = [...permissionIds];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (result.has(next)) continue;
    result.add(next);
    pending.push(...(dependencies.get(next) ?? []));
  }
  return result;
};

/** Transitive dependencies of `permissionIds` that are not among them already. */
export const dependentPermissionsOf = (
  permissionIds: readonly string[],
  dependencies: ReadonlyMap<string, readonly string[]>,
): string[] => {
  const own = new Set(permissionIds);
  return [...withDependencies(permissionIds, dependencies)].filter((id) => !own.has(id)).sort();
};

export const effectivePermissions = (
  grants: readonly Grant[],
  dependencies: ReadonlyMap<string, readonly string[]>,
): EffectivePermissions => {
  const live = grants.filter((grant) => !grant.archived);
  const permissions = withDependencies(
    live.flatMap((grant) => grant.permissions),
    dependencies,
  );
  const pluginPermissions: Record<string, Set<string>> = {};
  for (const grant of live) {
    for (const [pluginId, actions] of Object.entries(grant.pluginPermissions ?? {})) {
      pluginPermissions[pluginId] ??= new Set();
      for (const action of actions) pluginPermissions[pluginId].add(action);
    }
  }
  return {
    permissions: [...permissions].sort(),
    pluginPermissions: Object.fromEntries(
      Object.entries(pluginPermissions).map(([pluginId, actions]) => [pluginId, [...actions].sort()]),
    ),
  };
};
