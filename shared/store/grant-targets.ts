import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_GRANTS_PER_HOLDER } from '../domain/limits.js';
import { batchGetByKey } from './batch.js';
import { ManagedRoleEntity, PolicyEntity, RoleEntity } from './entities.js';
import type { ItemKey } from './keys.js';
import { checkLive, type Write } from './writes.js';

/** The set-valued grants of users and user groups. ADD and DELETE on sets are atomic. */
export type GrantField = 'roles' | 'managedRoles' | 'policies';

/** What the audit log calls what each field grants (`role` in `user.role.granted`, a target's type). */
const GRANTED_KIND = { roles: 'role', managedRoles: 'managedRole', policies: 'policy' } as const;

export const grantedKind = (field: GrantField) => GRANTED_KIND[field];

/** The audit action of granting or revoking in `field` of a user or a group: `group.policy.revoked`. */
export const grantAction = (holder: 'user' | 'group', field: GrantField, change: 'granted' | 'revoked') =>
  `${holder}.${GRANTED_KIND[field]}.${change}` as const;

export interface GrantTarget {
  field: GrantField;
  id: string;
  /** The item that must exist (and not be archived) for a grant. */
  key: ItemKey;
  /** What a refusal names: "Role", "Managed role", "Policy". */
  entity: string;
}

/** What granting `id` in `field` refers to, in the organization (managed roles are global). */
export const grantTarget = (orgId: string, field: GrantField, id: string): GrantTarget => {
  if (field === 'roles')
    return { field, id, key: RoleEntity.key({ organizationId: orgId, id }), entity: 'Role' };
  if (field === 'policies')
    return { field, id, key: PolicyEntity.key({ organizationId: orgId, id }), entity: 'Policy' };
  return { field, id, key: ManagedRoleEntity.key({ id }), entity: 'Managed role' };
};

/** Whether the target exists and is not archived (read outside a transaction). */
export const targetLive = async (target: GrantTarget): Promise<boolean> => {
  const item = (await batchGetByKey([target.key])).get(target.key);
  return item !== undefined && item.archived !== true;
};

/** Checks, in the granting transaction, that the target is live (NotFound naming it otherwise). */
export const targetIsLive = (target: GrantTarget): Write =>
  checkLive(target.key, () => new NotFound(target.entity, target.id));

/**
 * Condition part: adding `:id` to the set `#field` keeps it within MAX_GRANTS_PER_HOLDER. An id
 * already held adds nothing, so granting it again stays an idempotent success at the limit.
 */
export const withinGrantLimit = (field: string, id: string) => ({
  condition: '(attribute_not_exists(#field) OR size(#field) < :max OR contains(#field, :id))',
  names: { '#field': field },
  values: { ':max': MAX_GRANTS_PER_HOLDER, ':id': id },
});

/** The ids a user or group holds in a set field, as a failed condition saw its item. */
export const heldIn = (seen: Record<string, unknown>, field: string): ReadonlySet<unknown> => {
  const held = seen[field];
  return held instanceof Set ? held : new Set();
};

/**
 * A grant, revocation or membership change found the holder as asked already (granted, not held,
 * a member): a success that changes nothing, and so records nothing.
 */
export class AlreadyAsAsked extends Error {
  constructor() {
    super('Nothing to change');
  }
}

const FIELD_IN_WORDS: Record<GrantField, string> = {
  roles: 'roles',
  managedRoles: 'managed roles',
  policies: 'policies',
};

/** The refusal when a user or user group holds MAX_GRANTS_PER_HOLDER ids of `field` already. */
export const grantLimitReached = (holder: 'User' | 'User group', field: GrantField): Conflict =>
  new Conflict(
    holder,
    `A ${holder.toLowerCase()} holds at most ${MAX_GRANTS_PER_HOLDER} ${FIELD_IN_WORDS[field]}; ` +
      `${holder === 'User' ? 'revoke' : 'unassign'} one first`,
  );
