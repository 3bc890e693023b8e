/**
 * What a principal may do, from what it was granted. Pure: the caller reads the grants.
 *
 * Effective permissions = the permissions of the principal's roles and managed roles, plus those
 * of the roles and managed roles of its ACTIVE user groups, plus their dependencies, transitively.
 * Archived roles and policies, and ids that resolve to nothing, grant nothing. Policies count the
 * same way (own plus active groups', live ones only).
 */

/** A plugin permission as tokens and role responses name it. */
export interface PluginAction {
  module: string;
  actionName: string;
}

/** How a plugin action is told apart: its module and its name. */
export const pluginActionKey = (action: PluginAction) => JSON.stringify([action.module, action.actionName]);

/** A role or managed role as read from the table. */
export interface RoleGrant {
  permissions?: Iterable<string>;
  /** pluginId -> granted actions */
  pluginPermissions?: Readonly<Record<string, readonly PluginAction[]>>;
  archived?: boolean;
}

/** Whatever holds grants: a user, an API client, a user group. */
export interface GrantHolder {
  roles?: Iterable<string>;
  managedRoles?: Iterable<string>;
  policies?: Iterable<string>;
}

export interface GroupGrants extends GrantHolder {
  /** Only ACTIVE groups grant. */
  active: boolean;
}

export interface GrantedIds {
  roleIds: string[];
  managedRoleIds: string[];
  policyIds: string[];
}

export interface ResolvedGrants {
  roles: ReadonlyMap<string, RoleGrant>;
  managedRoles: ReadonlyMap<string, RoleGrant>;
  /** Policies found; archived ones marked. */
  policies: ReadonlyMap<string, { archived?: boolean }>;
  /**
   * pluginId -> the actions (`pluginActionKey`) the plugin defines now: a grant of an action its
   * plugin no longer defines grants nothing, as a catalogue id that no longer resolves.
   */
  pluginActions: ReadonlyMap<string, ReadonlySet<string>>;
}

export interface EffectiveAccess {
  permissions: string[];
  /** pluginId -> action names */
  pluginPermissions: Record<string, string[]>;
  policies: string[];
}

const sortedUnion = (sets: Iterable<Iterable<string> | undefined>): string[] => {
  const all = new Set<string>();
  for (const set of sets) for (const id of set ?? []) all.add(id);
  return [...all].sort();
};

/** The ids to read: the principal's own grants and those of its active groups. */
export const grantedIds = (principal: GrantHolder, groups: readonly GroupGrants[] = []): GrantedIds => {
  const holders = [principal, ...groups.filter((group) => group.active)];
  return {
    roleIds: sortedUnion(holders.map((holder) => holder.roles)),
    managedRoleIds: sortedUnion(holders.map((holder) => holder.managedRoles)),
    policyIds: sortedUnion(holders.map((holder) => holder.policies)),
  };
};

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

export const effectiveAccess = (
  ids: GrantedIds,
  resolved: ResolvedGrants,
  dependencies: ReadonlyMap<string, readonly string[]>,
): EffectiveAccess => {
  const liveRoles = [
    ...ids.roleIds.map((id) => resolved.roles.get(id)),
    ...ids.managedRoleIds.map((id) => resolved.managedRoles.get(id)),
  ].filter((role): role is RoleGrant => role !== undefined && role.archived !== true);

  // A Map: plugin ids are identifiers, `constructor` among them.
  const pluginPermissions = new Map<string, Set<string>>();
  for (const role of liveRoles) {
    for (const [pluginId, actions] of Object.entries(role.pluginPermissions ?? {})) {
      const united = pluginPermissions.get(pluginId) ?? new Set<string>();
      pluginPermissions.set(pluginId, united);
      const defined = resolved.pluginActions.get(pluginId);
      for (const action of actions) if (defined?.has(pluginActionKey(action))) united.add(action.actionName);
    }
  }
  return {
    permissions: [
      ...withDependencies(
        liveRoles.flatMap((role) => [...(role.permissions ?? [])]),
        dependencies,
      ),
    ].sort(),
    pluginPermissions: Object.fromEntries(
      [...pluginPermissions]
        .filter(([, actions]) => actions.size > 0)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([pluginId, actions]) => [pluginId, [...actions].sort()]),
    ),
    policies: ids.policyIds.filter((id) => {
      const policy = resolved.policies.get(id);
      return policy !== undefined && policy.archived !== true;
    }),
  };
};
