import { LimitExceeded, NotFound } from '../domain/errors.js';
import { batchGetByKey } from './batch.js';
import { RoleEntity, RoleNameGuardEntity, UserGroupEntity } from './entities.js';
import { type GrantField, type GrantTarget, targetIsLive } from './grant-targets.js';
import { joinGroupWrites, leaveGroupWrites } from './group-membership.js';
import { keys } from './keys.js';
import { requireUser } from './user-repository.js';
import {
  addTo,
  check,
  concurrentChange,
  retryOnConcurrentChange,
  transact,
  update,
  writeOne,
} from './writes.js';

/** Keeps user items small: they are read on every page of the user list. */
const MAX_ADDITIONAL_PROPERTIES_BYTES = 16 * 1024;

const userNotFound = (userId: string) => () => new NotFound('User', userId);

/** Grants the target: one transaction checks that it is live in the organization and adds it. */
export const grantToUser = async (orgId: string, userId: string, target: GrantTarget): Promise<void> => {
  await transact([
    targetIsLive(target),
    update(
      keys.user(orgId, userId),
      {
        update: 'ADD #field :value',
        condition: 'attribute_exists(pk)',
        names: { '#field': target.field },
        values: { ':value': new Set([target.id]) },
      },
      userNotFound(userId),
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

const propertyCount = (orgId: string, name: string, delta: number) =>
  addTo(keys.userPropertyName(orgId, name), 'count', delta);

/**
 * Sets or removes additional properties. The user's version guards the read-modify-write, so
 * the per-name usage counts behind `GET /additionalUserProperties` stay exact.
 */
export const changeAdditionalProperties = async (
  orgId: string,
  userId: string,
  change: { set?: Record<string, string | number | Record<string, never>>; remove?: string[] },
  now = Date.now(),
): Promise<void> => {
  await retryOnConcurrentChange(async () => {
    const user = await requireUser(orgId, userId, true);
    const current = { ...(user.additionalProperties ?? {}) };
    const added = Object.keys(change.set ?? {}).filter((name) => !Object.hasOwn(current, name));
    const removed = [...new Set(change.remove ?? [])].filter((name) => Object.hasOwn(current, name));
    const next = { ...current, ...(change.set ?? {}) };
    for (const name of removed) delete next[name];
    if (Buffer.byteLength(JSON.stringify(next)) > MAX_ADDITIONAL_PROPERTIES_BYTES) {
      throw new LimitExceeded("A user's additional properties may take at most 16 KiB");
    }
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
      ...added.map((name) => propertyCount(orgId, name, 1)),
      ...removed.map((name) => propertyCount(orgId, name, -1)),
    ]);
  });
};
