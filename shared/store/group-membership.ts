import { NotFound } from '../domain/errors.js';
import { GroupMemberEntity } from './entities.js';
import { keys } from './keys.js';
import { put, remove, update, type Write } from './writes.js';

/**
 * A membership has two sides: the user's `userGroups` set and the membership item listed under the
 * group. Every change writes both in one transaction, so they never disagree.
 */
export const joinGroupWrites = (orgId: string, userId: string, groupId: string, now: number): Write[] => [
  update(
    keys.user(orgId, userId),
    {
      update: 'ADD userGroups :group',
      condition: 'attribute_exists(pk)',
      values: { ':group': new Set([groupId]) },
    },
    () => new NotFound('User', userId),
  ),
  put(GroupMemberEntity.item({ organizationId: orgId, groupId, userId }, { userId, groupId, addedAt: now })),
];

/** Leaving: `requireUser` says whether a missing user is a refusal (a caller naming it) or moot. */
export const leaveGroupWrites = (
  orgId: string,
  userId: string,
  groupId: string,
  options: { requireUser: boolean },
): Write[] => [
  update(
    keys.user(orgId, userId),
    {
      update: 'DELETE userGroups :group',
      ...(options.requireUser ? { condition: 'attribute_exists(pk)' } : {}),
      values: { ':group': new Set([groupId]) },
    },
    () => new NotFound('User', userId),
  ),
  remove(GroupMemberEntity.key({ organizationId: orgId, groupId, userId })),
];
