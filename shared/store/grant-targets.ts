import { NotFound } from '../domain/errors.js';
import { ManagedRoleEntity, PolicyEntity, RoleEntity } from './entities.js';
import type { ItemKey } from './keys.js';
import { checkLive, type Write } from './writes.js';

/** The set-valued grants of users and user groups. ADD and DELETE on sets are atomic. */
export type GrantField = 'roles' | 'managedRoles' | 'policies';

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

/** Checks, in the granting transaction, that the target is live (NotFound naming it otherwise). */
export const targetIsLive = (target: GrantTarget): Write =>
  checkLive(target.key, () => new NotFound(target.entity, target.id));
