import type { AuditAction } from '../audit/actions.js';
import { changesBetween } from '../audit/changes.js';
import { LimitExceeded, NotFound } from '../domain/errors.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { RoleEntity, RoleNameGuardEntity, UserGroupEntity } from './entities.js';
import {
  AlreadyAsAsked,
  type GrantField,
  type GrantTarget,
  grantAction,
  grantedKind,
  grantLimitReached,
  heldIn,
  targetIsLive,
  withinGrantLimit,
} from './grant-targets.js';
import { joinGroupWrites, leaveGroupWrites } from './group-membership.js';
import { keys } from './keys.js';
import {
  countNamesInUse,
  NamesInUseUncounted,
  nameCountWrites,
  readNameCounts,
} from './property-name-counts.js';
import { requireUser } from './user-repository.js';
import { check, concurrentChange, retryOnConcurrentChange, transact, update } from './writes.js';

/** Keeps user items small: they are read on every page of the user list. */
const MAX_ADDITIONAL_PROPERTIES_BYTES = 16 * 1024;

/** The record of a grant or revocation: the user, then what was granted or revoked. */
const grantRecord = (
  orgId: string,
  userId: string,
  field: GrantField,
  id: string,
  change: 'granted' | 'revoked',
) => ({
  organizationId: orgId,
  action: grantAction('user', field, change),
  targets: [
    { type: 'user', id: userId },
    { type: grantedKind(field), id },
  ],
});

/**
 * Runs a change that fails with AlreadyAsAsked when there is nothing to change: that is a success.
 * Answers whether it changed anything (an undo must reverse only what its own request changed).
 */
const unlessAlreadyAsAsked = async (change: Promise<void>): Promise<boolean> => {
  try {
    await change;
    return true;
  } catch (error) {
    if (!(error instanceof AlreadyAsAsked)) throw error;
    return false;
  }
};

/**
 * Grants the target: one transaction checks that it is live in the organization and adds it with
 * its audit record, as long as the user holds fewer than MAX_GRANTS_PER_HOLDER of its kind. A
 * target held already is a success that writes (and records) nothing.
 */
export const grantToUser = async (
  orgId: string,
  userId: string,
  target: GrantTarget,
  now = Date.now(),
): Promise<void> => {
  const limit = withinGrantLimit(target.field, target.id);
  await unlessAlreadyAsAsked(
    transact([
      targetIsLive(target),
      update(
        keys.user(orgId, userId),
        {
          update: 'ADD #field :value',
          condition: `attribute_exists(pk) AND ${limit.condition} AND NOT contains(#field, :id)`,
          names: limit.names,
          values: { ':value': new Set([target.id]), ...limit.values },
          seeItemOnFailure: true,
        },
        (user) => {
          if (!user) return new NotFound('User', userId);
          return heldIn(user, target.field).has(target.id)
            ? new AlreadyAsAsked()
            : grantLimitReached('User', target.field);
        },
      ),
      ...(await auditWrites(grantRecord(orgId, userId, target.field, target.id, 'granted'), now)),
    ]),
  );
};

/**
 * Revokes idempotently, with its audit record; revoking what the user does not hold writes (and
 * records) nothing. The target need not exist any more (archived roles can be revoked).
 */
export const revokeFromUser = async (
  orgId: string,
  userId: string,
  field: GrantField,
  id: string,
  now = Date.now(),
) => {
  await unlessAlreadyAsAsked(
    transact([
      update(
        keys.user(orgId, userId),
        {
          update: 'DELETE #field :value',
          condition: 'attribute_exists(pk) AND contains(#field, :id)',
          names: { '#field': field },
          values: { ':value': new Set([id]), ':id': id },
          seeItemOnFailure: true,
        },
        (user) => (user ? new AlreadyAsAsked() : new NotFound('User', userId)),
      ),
      ...(await auditWrites(grantRecord(orgId, userId, field, id, 'revoked'), now)),
    ]),
  );
};

/**
 * A role by name (case-insensitive) first, then by id; one BatchGet for both candidates. Archived
 * roles have no name any more; by id they are found only for revoking.
 */
export const resolveRoleId = async (
  orgId: string,
  roleNameOrId: string,
  options: { includeArchived?: boolean } = {},
): Promise<string> => {
  const byName = RoleNameGuardEntity.key({ organizationId: orgId, name: roleNameOrId });
  const byId = RoleEntity.key({ organizationId: orgId, id: roleNameOrId });
  const read = await batchGetByKey([byName, byId]);
  const guard = read.get(byName);
  if (guard) return RoleNameGuardEntity.decode(guard).roleId;
  const role = read.get(byId);
  if (role) {
    const { id, archived } = RoleEntity.decode(role);
    if (!archived || options.includeArchived) return id;
  }
  throw new NotFound('Role', roleNameOrId);
};

/** The record of a membership change: the user, then the group. */
export const membershipRecord = (orgId: string, userId: string, groupId: string, action: AuditAction) => ({
  organizationId: orgId,
  action,
  targets: [
    { type: 'user', id: userId },
    { type: 'group', id: groupId },
  ],
});

/**
 * Adds the user to the group, both sides at once, with its audit record; a group being copied or
 * deleted takes no one. A member already is a success that writes (and records) nothing: answers
 * whether the user joined.
 */
export const addUserToGroup = async (
  orgId: string,
  userId: string,
  groupId: string,
  now = Date.now(),
  options: { provisionedOnly?: boolean } = {},
): Promise<boolean> =>
  unlessAlreadyAsAsked(
    transact([
      check(
        UserGroupEntity.key({ organizationId: orgId, id: groupId }),
        { condition: 'attribute_exists(pk) AND attribute_not_exists(lifecycle)' },
        () => new NotFound('User group', groupId),
      ),
      ...joinGroupWrites(orgId, userId, groupId, now, { onlyNew: true, ...options }),
      ...(await auditWrites(membershipRecord(orgId, userId, groupId, 'user.group.added'), now)),
    ]),
  );

/**
 * Removes the user from the group with its audit record; a user not in it writes (and records)
 * nothing: answers whether the user left.
 */
export const removeUserFromGroup = async (
  orgId: string,
  userId: string,
  groupId: string,
  now = Date.now(),
): Promise<boolean> =>
  unlessAlreadyAsAsked(
    transact([
      ...leaveGroupWrites(orgId, userId, groupId, { requireUser: true, onlyMember: true }),
      ...(await auditWrites(membershipRecord(orgId, userId, groupId, 'user.group.removed'), now)),
    ]),
  );

/**
 * Additional properties as audit changes see them: one field per property, prefixed so that a
 * property named like a bookkeeping field (`version`, `updatedAt`) is still shown.
 */
const propertyFields = (properties: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(properties).map(([name, value]) => [`additionalProperties.${name}`, value]),
  );

/**
 * Sets or removes additional properties, with an audit record of the properties whose values
 * changed (none changed: no record). The user's version guards the read-modify-write; the
 * counts of the names it adds or removes are read with the user and written conditioned on what was
 * read (shared/store/property-name-counts.ts), so the per-name counts behind
 * `GET /additionalUserProperties` stay exact, and a change bringing a name into use beyond
 * MAX_ADDITIONAL_PROPERTY_NAMES in the organization is refused (Conflict) with nothing written.
 */
export const changeAdditionalProperties = async (
  orgId: string,
  userId: string,
  change: { set?: Record<string, string | number | Record<string, never>>; remove?: string[] },
  now = Date.now(),
): Promise<void> => {
  const named = new Set([...Object.keys(change.set ?? {}), ...(change.remove ?? [])]);
  let uncounted = false;
  await retryOnConcurrentChange(async () => {
    const [user, countOf, namesInUse] = await Promise.all([
      requireUser(orgId, userId, true),
      readNameCounts(orgId, named),
      uncounted ? countNamesInUse(orgId) : undefined,
    ]);
    uncounted = false;
    const current = { ...(user.additionalProperties ?? {}) };
    const added = Object.keys(change.set ?? {}).filter((name) => !Object.hasOwn(current, name));
    const removed = [...new Set(change.remove ?? [])].filter((name) => Object.hasOwn(current, name));
    const next = { ...current, ...(change.set ?? {}) };
    for (const name of removed) delete next[name];
    if (Buffer.byteLength(JSON.stringify(next)) > MAX_ADDITIONAL_PROPERTIES_BYTES) {
      throw new LimitExceeded("A user's additional properties may take at most 16 KiB");
    }
    const changes = changesBetween(propertyFields(current), propertyFields(next));
    try {
      await transact([
        ...(Object.keys(changes).length === 0
          ? []
          : await auditWrites(
              {
                organizationId: orgId,
                action: change.set ? 'user.properties.granted' : 'user.properties.revoked',
                targets: [{ type: 'user', id: userId, name: user.email }],
                changes,
              },
              now,
            )),
        update(
          keys.user(orgId, userId),
          {
            update: 'SET additionalProperties = :next, updatedAt = :now, version = version + :one',
            condition: 'version = :version',
            values: { ':next': next, ':now': now, ':one': 1, ':version': user.version },
          },
          concurrentChange,
        ),
        ...nameCountWrites(orgId, { added, removed }, countOf, namesInUse),
      ]);
    } catch (error) {
      // Kept since before the organization counted its names: count them, then try again.
      if (error instanceof NamesInUseUncounted) uncounted = true;
      throw error;
    }
  });
};
