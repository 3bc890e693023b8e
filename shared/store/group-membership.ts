import { Conflict, HolderLimitReached, NotFound } from '../domain/errors.js';
import { MAX_GRANTS_PER_HOLDER } from '../domain/limits.js';
import { GroupMemberEntity } from './entities.js';
import { AlreadyAsAsked, heldIn, withinGrantLimit } from './grant-targets.js';
import { keys } from './keys.js';
import { put, remove, update, type Write } from './writes.js';

/** The refusal when the user is in MAX_GRANTS_PER_HOLDER groups already; it names the user. */
export const groupLimitReached = (userId: string) =>
  new HolderLimitReached(
    'User',
    `User ${userId} is in ${MAX_GRANTS_PER_HOLDER} user groups already, the most a user may be in`,
  );

const deprovisionedJoin = (userId: string) =>
  new Conflict(
    'User',
    `User ${userId} was deleted by its SCIM directory: it joins no group until the directory provisions it again`,
  );

/**
 * A membership has two sides: the user's `userGroups` set and the membership item listed under the
 * group. Every change writes both in one transaction, so they never disagree. A user belongs to at
 * most MAX_GRANTS_PER_HOLDER groups; joining a group the user is in already stays a success. With
 * `onlyNew`, joining it again fails with AlreadyAsAsked instead, so that nothing is written (or
 * recorded) for it. A user a directory's DELETE deprovisioned joins no group (no Group SCIM
 * answers may list a member it answers 404 for): not found for the directory (`provisionedOnly`),
 * a conflict for anyone else.
 */
export const joinGroupWrites = (
  orgId: string,
  userId: string,
  groupId: string,
  now: number,
  options: { onlyNew?: boolean; provisionedOnly?: boolean } = {},
): Write[] => {
  const limit = withinGrantLimit('userGroups', groupId);
  return [
    update(
      keys.user(orgId, userId),
      {
        update: 'ADD #field :group',
        condition: [
          'attribute_exists(pk)',
          limit.condition,
          ...(options.onlyNew ? ['NOT contains(#field, :id)'] : []),
          'attribute_not_exists(deprovisionedAt)',
        ].join(' AND '),
        names: limit.names,
        values: { ':group': new Set([groupId]), ...limit.values },
        seeItemOnFailure: true,
      },
      (user) => {
        if (!user || (options.provisionedOnly && user.deprovisionedAt !== undefined))
          return new NotFound('User', userId);
        if (user.deprovisionedAt !== undefined) return deprovisionedJoin(userId);
        return heldIn(user, 'userGroups').has(groupId) ? new AlreadyAsAsked() : groupLimitReached(userId);
      },
    ),
    put(
      GroupMemberEntity.item({ organizationId: orgId, groupId, userId }, { userId, groupId, addedAt: now }),
    ),
  ];
};

/**
 * Leaving: `requireUser` says whether a missing user is a refusal (a caller naming it) or moot;
 * with `onlyMember`, a user not in the group fails with AlreadyAsAsked and nothing is written.
 */
export const leaveGroupWrites = (
  orgId: string,
  userId: string,
  groupId: string,
  options: { requireUser: boolean; onlyMember?: boolean },
): Write[] => [
  options.onlyMember
    ? update(
        keys.user(orgId, userId),
        {
          update: 'DELETE userGroups :group',
          condition: 'attribute_exists(pk) AND contains(userGroups, :id)',
          values: { ':group': new Set([groupId]), ':id': groupId },
          seeItemOnFailure: true,
        },
        (user) => (user ? new AlreadyAsAsked() : new NotFound('User', userId)),
      )
    : update(
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
