import { randomUUID } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { ChangedMeanwhile } from '../domain/errors.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { cutText } from '../schemas/text.js';
import { auditWrites } from './audit-records.js';
import { UserGroupEntity, type UserGroupRecord } from './entities.js';
import { joinGroupWrites, leaveGroupWrites } from './group-membership.js';
import { keys, LISTINGS } from './keys.js';
import { nextSequence } from './sequenced-listing.js';
import {
  auditedGroup,
  freeGuardWrites,
  groupTarget,
  guardWrites,
  hideForDeletion,
  memberIdsOf,
  removeHiddenGroup,
  requireUserGroup,
  takenNamesStartingWith,
  visibilityWrites,
} from './user-group-repository.js';
import { ConcurrentChange, concurrentChange, create, transact, update, type Write } from './writes.js';

/**
 * Deleting or duplicating a group touches every member: each member's `userGroups` set and its
 * membership item change together, 50 members (100 items, DynamoDB's limit) per transaction, so
 * the two sides never disagree. A group being deleted or filled carries a `lifecycle` mark that
 * hides it and makes it grant nothing until the work is done; a repeated DELETE finishes it.
 */
const MEMBERS_PER_TRANSACTION = 50;
const MAX_GROUP_NAME_LENGTH = 200;
const PARALLEL_TRANSACTIONS = 4;

/** Runs `writesOf` for every member, a transaction per 50 members, four transactions at a time. */
const inChunks = async (memberIds: readonly string[], writesOf: (userId: string) => Write[]) => {
  const chunks: string[][] = [];
  for (let index = 0; index < memberIds.length; index += MEMBERS_PER_TRANSACTION) {
    chunks.push(memberIds.slice(index, index + MEMBERS_PER_TRANSACTION));
  }
  for (let index = 0; index < chunks.length; index += PARALLEL_TRANSACTIONS) {
    // Let every transaction of the round finish before reporting a failure, so that an undo that
    // follows sees all that was written (none still in flight).
    const round = chunks.slice(index, index + PARALLEL_TRANSACTIONS);
    const results = await Promise.allSettled(round.map((chunk) => transact(chunk.flatMap(writesOf))));
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
};

/** Finishes removing a group that is marked DELETING (or abandoned while COPYING). */
const finishDeletion = async (orgId: string, groupId: string) => {
  // A member deleted meanwhile leaves nothing to remove on its side.
  await inChunks(await memberIdsOf(orgId, groupId), (userId) =>
    leaveGroupWrites(orgId, userId, groupId, { requireUser: false }),
  );
  await removeHiddenGroup(orgId, groupId);
};

/**
 * Deletes a group: first, atomically, hides it (mark, listing and count, name and number guards
 * freed), then removes it from its members in bounded transactions, then deletes the item. The
 * record rides with the first step, which commits the deletion (the rest only finishes it).
 */
export const deleteUserGroup = async (orgId: string, groupId: string, now = Date.now()): Promise<void> => {
  await hideForDeletion(orgId, groupId, now);
  await finishDeletion(orgId, groupId);
};

/** `Copy of <name>`, then `Copy of <name> (2)`, ... the first one not taken. */
const copyName = (name: string, taken: ReadonlySet<string>): string => {
  // Room for "Copy of " and a " (n)" suffix within the 200 characters a name may have.
  // Never within an emoji's surrogate pair: half of one is not Unicode text.
  const base = cutText(`Copy of ${name}`, MAX_GROUP_NAME_LENGTH - 8);
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
const undoCopy = async (copy: UserGroupRecord, cause: unknown) => {
  const orgId = copy.organizationId;
  try {
    await transact([
      ...freeGuardWrites(copy),
      update(keys.userGroup(orgId, copy.id), {
        update: 'SET lifecycle = :deleting',
        values: { ':deleting': 'DELETING' },
      }),
    ]);
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

/** Creates the hidden copy under the first free copy name (another request may take one first). */
const reserveCopy = async (source: UserGroupRecord, sequence: number, createdBy: string, now: number) => {
  for (let attempt = 0; attempt < 30; attempt++) {
    const taken = await takenNamesStartingWith(
      source.organizationId,
      `Copy of ${source.name}`.slice(0, MAX_GROUP_NAME_LENGTH - 8),
    );
    const copy: UserGroupRecord = {
      id: randomUUID(),
      organizationId: source.organizationId,
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
      await transact([
        create(UserGroupEntity.item(copy, copy), concurrentChange),
        ...guardWrites(copy, concurrentChange),
      ]);
      return copy;
    } catch (error) {
      // Another request took the same copy name in between: pick the next one.
      if (!(error instanceof ConcurrentChange)) throw error;
    }
  }
  throw new ChangedMeanwhile('User group', 'Too many concurrent copies of this group; retry');
};

/**
 * Duplicates a group with its description, status, grants and members (not its number). The copy
 * is created hidden (COPYING) under its reserved name, filled, then revealed in one transaction;
 * if filling fails, the partial copy is removed again. The record rides with the reveal: the
 * transactions before it are undone when the copy fails, so only the reveal commits the copy.
 */
export const duplicateUserGroup = async (
  orgId: string,
  sourceId: string,
  createdBy: string,
  /** Runs on the source before anything is written, when the copy will be ACTIVE: its members get its roles. */
  beforeActiveCopy: (source: UserGroupRecord) => Promise<void>,
  now = Date.now(),
): Promise<UserGroupRecord> => {
  const source = await requireUserGroup(orgId, sourceId);
  if (source.status === 'ACTIVE') await beforeActiveCopy(source);
  const [memberIds, { sequence }] = await Promise.all([
    memberIdsOf(orgId, sourceId),
    nextSequence(orgId, 'groupSequence'),
  ]);
  const copy = await reserveCopy(source, sequence, createdBy, now);
  try {
    await inChunks(memberIds, (userId) => joinGroupWrites(orgId, userId, copy.id, now));
    await transact([
      update(
        keys.userGroup(orgId, copy.id),
        {
          update: 'SET #listing = :entry REMOVE lifecycle',
          condition: 'lifecycle = :copying',
          names: { '#listing': keys.listingSortKey },
          values: { ':entry': keys.listingEntry(LISTINGS.groups, sequence), ':copying': 'COPYING' },
        },
        concurrentChange,
      ),
      ...visibilityWrites(copy, 1),
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'group.duplicated',
          targets: [groupTarget(copy), groupTarget(source)],
          changes: changesBetween(undefined, auditedGroup(copy)),
        },
        now,
      )),
    ]);
  } catch (error) {
    await undoCopy(copy, error);
    throw error;
  }
  const { lifecycle: _copying, ...visible } = copy;
  return visible;
};
