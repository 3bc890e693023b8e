import { randomUUID } from 'node:crypto';
import { conflict, notFound } from '../http/errors.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { tableName } from './dynamo.js';
import { keys } from './keys.js';
import { LISTING_SORT_KEY, nextSequence } from './sequenced-listing.js';
import {
  ConcurrentChange,
  retryOnConcurrentChange,
  type TransactItems,
  transactWrite,
} from './transactions.js';
import {
  GROUP_LISTING,
  getUserGroup,
  guardItems,
  memberIdsOf,
  requireUserGroup,
  takenNamesStartingWith,
  type UserGroupRecord,
  visibilityItems,
} from './user-group-repository.js';

/**
 * Deleting or duplicating a group touches every member: each member's `userGroups` set and its
 * membership item change together, 50 members (100 items, DynamoDB's limit) per transaction, so
 * the two sides never disagree. A group being deleted or filled carries a `lifecycle` mark that
 * hides it and makes it grant nothing until the work is done; a repeated DELETE finishes it.
 */
const MEMBERS_PER_TRANSACTION = 50;
const MAX_GROUP_NAME_LENGTH = 200;
const PARALLEL_TRANSACTIONS = 4;

const inChunks = async (ids: readonly string[], work: (chunk: string[]) => Promise<void>) => {
  const chunks: string[][] = [];
  for (let index = 0; index < ids.length; index += MEMBERS_PER_TRANSACTION) {
    chunks.push(ids.slice(index, index + MEMBERS_PER_TRANSACTION));
  }
  for (let index = 0; index < chunks.length; index += PARALLEL_TRANSACTIONS) {
    // Let every transaction of the round finish before reporting a failure, so that an undo that
    // follows sees all that was written (none still in flight).
    const results = await Promise.allSettled(chunks.slice(index, index + PARALLEL_TRANSACTIONS).map(work));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
};

const removeMembers = (orgId: string, groupId: string, memberIds: readonly string[]) =>
  inChunks(memberIds, (chunk) =>
    transactWrite(
      chunk.flatMap((userId) => [
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(orgId, userId),
            UpdateExpression: 'DELETE userGroups :group',
            ExpressionAttributeValues: { ':group': new Set([groupId]) },
          },
        },
        { Delete: { TableName: tableName(), Key: keys.groupMember(orgId, groupId, userId) } },
      ]),
      () => new Error('unexpected condition failure while removing members'),
    ),
  );

const addMembers = (orgId: string, groupId: string, memberIds: readonly string[], now: number) =>
  inChunks(memberIds, (chunk) =>
    transactWrite(
      chunk.flatMap((userId) => [
        {
          Update: {
            TableName: tableName(),
            Key: keys.user(orgId, userId),
            UpdateExpression: 'ADD userGroups :group',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':group': new Set([groupId]) },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.groupMember(orgId, groupId, userId), userId, groupId, addedAt: now },
          },
        },
      ]),
      () => new Error('a member disappeared while copying'),
    ),
  );

/** Finishes removing a group that is marked DELETING (or abandoned while COPYING). */
const finishDeletion = async (orgId: string, groupId: string) => {
  await removeMembers(orgId, groupId, await memberIdsOf(orgId, groupId));
  // A concurrent DELETE may have finished first: then there is nothing left to do.
  await transactWrite(
    [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.userGroup(orgId, groupId),
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(lifecycle)',
        },
      },
    ],
    () => new ConcurrentChange(),
  );
};

/**
 * Deletes a group: first, atomically, hides it (mark, listing and count, name and number guards
 * freed), then removes it from its members in bounded transactions, then deletes the item.
 */
export const deleteUserGroup = async (orgId: string, groupId: string, now = Date.now()): Promise<void> => {
  await retryOnConcurrentChange(async () => {
    const group = await getUserGroup(orgId, groupId);
    if (!group) throw notFound('User group');
    if (group.lifecycle !== undefined) return;
    await transactWrite(
      [
        {
          Update: {
            TableName: tableName(),
            Key: keys.userGroup(orgId, groupId),
            UpdateExpression: 'SET lifecycle = :deleting, updatedAt = :now REMOVE #listing',
            ConditionExpression: 'version = :version AND attribute_not_exists(lifecycle)',
            ExpressionAttributeNames: { '#listing': LISTING_SORT_KEY },
            ExpressionAttributeValues: { ':deleting': 'DELETING', ':now': now, ':version': group.version },
          },
        },
        ...visibilityItems(group, -1),
        { Delete: { TableName: tableName(), Key: keys.userGroupNameGuard(orgId, group.name) } },
        ...(group.number
          ? [{ Delete: { TableName: tableName(), Key: keys.userGroupNumberGuard(orgId, group.number) } }]
          : []),
      ],
      // Changed (or marked) in between: read again and decide again.
      () => new ConcurrentChange(),
    );
  });
  await finishDeletion(orgId, groupId);
};

/** `Copy of <name>`, then `Copy of <name> (2)`, ... the first one not taken. */
const copyName = (name: string, taken: ReadonlySet<string>): string => {
  // Room for "Copy of " and a " (n)" suffix within the 200 characters a name may have.
  const base = `Copy of ${name}`.slice(0, MAX_GROUP_NAME_LENGTH - 8);
  if (!taken.has(base.toLowerCase())) return base;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${base} (${suffix})`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
};

/**
 * Removes a copy whose filling failed; the name guard goes with it so the name is free again. If
 * the undo fails too, the copy stays hidden (COPYING or DELETING, so it grants nothing) and the log
 * says which group is left behind.
 */
const undoCopy = async (orgId: string, copy: { id: string; name: string }, cause: unknown) => {
  try {
    await transactWrite(
      [
        { Delete: { TableName: tableName(), Key: keys.userGroupNameGuard(orgId, copy.name) } },
        {
          Update: {
            TableName: tableName(),
            Key: keys.userGroup(orgId, copy.id),
            UpdateExpression: 'SET lifecycle = :deleting',
            ExpressionAttributeValues: { ':deleting': 'DELETING' },
          },
        },
      ],
      () => new ConcurrentChange(),
    );
    await finishDeletion(orgId, copy.id);
    countMetric('RecoveredFaults');
  } catch (undoError) {
    logger.error('undo of a failed group duplicate failed: a hidden partial copy is left behind', {
      organizationId: orgId,
      groupId: copy.id,
      cause: cause instanceof Error ? cause.message : String(cause),
      error: undoError as Error,
    });
  }
};

/**
 * Duplicates a group with its description, status, grants and members (not its number). The copy
 * is created hidden (COPYING) under its reserved name, filled, then revealed in one transaction;
 * if filling fails, the partial copy is removed again.
 */
export const duplicateUserGroup = async (
  orgId: string,
  sourceId: string,
  createdBy: string,
  now = Date.now(),
): Promise<UserGroupRecord> => {
  const source = await requireUserGroup(orgId, sourceId);
  const [memberIds, sequence] = await Promise.all([
    memberIdsOf(orgId, sourceId),
    nextSequence(orgId, 'groupSequence'),
  ]);
  let copy: UserGroupRecord | undefined;
  for (let attempt = 0; !copy; attempt++) {
    const taken = await takenNamesStartingWith(
      orgId,
      `Copy of ${source.name}`.slice(0, MAX_GROUP_NAME_LENGTH - 8),
    );
    const candidate: UserGroupRecord = {
      id: randomUUID(),
      organizationId: orgId,
      name: copyName(source.name, taken),
      ...(source.description !== undefined ? { description: source.description } : {}),
      status: source.status,
      ...(source.roles?.size ? { roles: source.roles } : {}),
      ...(source.managedRoles?.size ? { managedRoles: source.managedRoles } : {}),
      ...(source.policies?.size ? { policies: source.policies } : {}),
      sequence,
      createdAt: now,
      updatedAt: now,
      createdBy,
      updatedBy: createdBy,
      version: 1,
      lifecycle: 'COPYING',
    };
    try {
      await transactWrite(
        [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.userGroup(orgId, candidate.id), ...candidate },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...guardItems(candidate),
        ],
        () => new ConcurrentChange(),
      );
      copy = candidate;
    } catch (error) {
      // Another request took the same copy name in between: pick the next one.
      if (!(error instanceof ConcurrentChange)) throw error;
      if (attempt >= 30) throw conflict('Too many concurrent copies of this group; retry');
    }
  }
  try {
    await addMembers(orgId, copy.id, memberIds, now);
    const reveal: TransactItems = [
      {
        Update: {
          TableName: tableName(),
          Key: keys.userGroup(orgId, copy.id),
          UpdateExpression: 'SET #listing = :entry REMOVE lifecycle',
          ConditionExpression: 'lifecycle = :copying',
          ExpressionAttributeNames: { '#listing': LISTING_SORT_KEY },
          ExpressionAttributeValues: {
            ':entry': keys.listingEntry(GROUP_LISTING, sequence),
            ':copying': 'COPYING',
          },
        },
      },
      ...visibilityItems(copy, 1),
    ];
    await transactWrite(reveal, () => new ConcurrentChange());
  } catch (error) {
    await undoCopy(orgId, copy, error);
    throw error;
  }
  const { lifecycle: _copying, ...visible } = copy;
  return visible;
};
