import { LimitExceeded, NotFound } from '../domain/errors.js';
import { batchGetByKey } from './batch.js';
import { RoleEntity, RoleNameGuardEntity, UserGroupEntity } from './entities.js';
import {
  type GrantField,
  type GrantTarget,
  grantLimitReached,
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
import { check, concurrentChange, retryOnConcurrentChange, transact, update, writeOne } from './writes.js';

/** Keeps user items small: they are read on every page of the user list. */
const MAX_ADDITIONAL_PROPERTIES_BYTES = 16 * 1024;

const userNotFound = (userId: string) => () => new NotFound('User', userId);

/**
 * Grants the target: one transaction checks that it is live in the organization and adds it, as
 * long as the user holds fewer than MAX_GRANTS_PER_HOLDER of its kind (or holds it already).
 */
export const grantToUser = async (orgId: string, userId: string, target: GrantTarget): Promise<void> => {
  const limit = withinGrantLimit(target.field, target.id);
  await transact([
    targetIsLive(target),
    update(
      keys.user(orgId, userId),
      {
        update: 'ADD #field :value',
        condition: `attribute_exists(pk) AND ${limit.condition}`,
        names: limit.names,
        values: { ':value': new Set([target.id]), ...limit.values },
        seeItemOnFailure: true,
      },
      (user) => (user ? grantLimitReached('User', target.field) : new NotFound('User', userId)),
    ),
  ]);
};

/** Revokes idempotently; the target need not exist any more (archived roles can be revoked). */
export const revokeFromUser = async (orgId: string, userId: string, field: GrantField, id: string) => {
  await writeOne(
    update(
      keys.user(orgId, userId),
      {
        update: 'DELETE #field :value',
        condition: 'attribute_exists(pk)',
        names: { '#field': field },
        values: { ':value': new Set([id]) },
      },
      userNotFound(userId),
    ),
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

/** Adds the user to the group, both sides at once; a group being copied or deleted takes no one. */
export const addUserToGroup = async (orgId: string, userId: string, groupId: string, now = Date.now()) => {
  await transact([
    check(
      UserGroupEntity.key({ organizationId: orgId, id: groupId }),
      { condition: 'attribute_exists(pk) AND attribute_not_exists(lifecycle)' },
      () => new NotFound('User group', groupId),
    ),
    ...joinGroupWrites(orgId, userId, groupId, now),
  ]);
};

export const removeUserFromGroup = async (orgId: string, userId: string, groupId: string) => {
  await transact(leaveGroupWrites(orgId, userId, groupId, { requireUser: true }));
};

/**
 * Sets or removes additional properties. The user's version guards the read-modify-write; the
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
    try {
      await transact([
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
