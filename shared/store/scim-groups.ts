import { NotFound } from '../domain/errors.js';
import { MAX_GRANTS_PER_HOLDER } from '../domain/limits.js';
import { logger } from '../http/logger.js';
import { invalidValue, tooMany } from '../scim/errors.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { GroupNameGuardEntity, UserEntity, UserGroupEntity, type UserGroupRecord } from './entities.js';
import { externalIdRemoval, holdersOfExternalId } from './external-ids.js';
import { AlreadyAsAsked } from './grant-targets.js';
import { joinGroupWrites, leaveGroupWrites } from './group-membership.js';
import { keys } from './keys.js';
import type { ItemBudget } from './query.js';
import { membershipRecord, removeUserFromGroup } from './user-grants.js';
import { deleteUserGroup } from './user-group-lifecycle.js';
import {
  createUserGroup,
  getUserGroup,
  isVisible,
  memberIdsOf,
  updateUserGroup,
} from './user-group-repository.js';
import { check, transact, type Write, writeOne } from './writes.js';

/**
 * User groups as a SCIM directory provisions them (docs/scim.md): the same groups as everywhere,
 * with the directory's external id. Name and external id change together in one transaction
 * (`updateUserGroup`); membership changes go many to a transaction, each with its own record (inBatches).
 */
export interface DirectoryGroup {
  displayName: string;
  externalId?: string;
  /** Absent: the members stay as they are. */
  members?: readonly string[];
}

/**
 * What a PUT or PATCH changes: the name and the external id only when given (`externalId: null`
 * clears it), so that a PATCH leaves a rename another request made meanwhile as it is.
 */
export interface DirectoryGroupChange {
  displayName?: string;
  externalId?: string | null;
  /** Absent: the members stay as they are. */
  members?: readonly string[];
}

export const visibleGroup = async (orgId: string, groupId: string): Promise<UserGroupRecord | undefined> => {
  const group = await getUserGroup(orgId, groupId);
  return isVisible(group) ? group : undefined;
};

export const groupsByDisplayName = async (orgId: string, displayName: string): Promise<UserGroupRecord[]> => {
  const guard = await GroupNameGuardEntity.get({ organizationId: orgId, name: displayName });
  const group = guard && (await visibleGroup(orgId, guard.groupId));
  return group ? [group] : [];
};

export const groupsByExternalId = async (orgId: string, externalId: string): Promise<UserGroupRecord[]> => {
  const ids = await holdersOfExternalId(orgId, 'GROUP', externalId);
  if (ids.length === 0) return [];
  const read = await batchGetByKey(ids.map((id) => keys.userGroup(orgId, id)));
  return read.items
    .map((item) => UserGroupEntity.decode(item))
    .filter((group) => isVisible(group) && group.externalId === externalId);
};

/** Every member id of a group (a PATCH works on the whole list). */
export const membersOf = (orgId: string, groupId: string) => memberIdsOf(orgId, groupId);

/**
 * Members one SCIM answer names at most, across its groups: each takes about 170 bytes of it (its
 * id and `$ref`, with the quotes Lambda's response envelope escapes), so a page of groups stays
 * well inside Lambda's 6 MB response. More is refused (400 tooMany), never cut: a directory would
 * read a shortened list as members removed.
 */
export const MAX_MEMBERS_ANSWERED = 20_000;

export const tooManyMembers = (limit: number) =>
  tooMany(
    `More than ${limit.toLocaleString('en')} members to answer at once: ask for fewer groups (count), or leave the members out (excludedAttributes=members); each User's groups attribute names its groups`,
  );

/**
 * The member ids of each group, read side by side under one budget (a read stops at the page
 * that overdraws it); 400 tooMany past `limit`.
 */
export const membersOfGroups = async (
  orgId: string,
  groupIds: readonly string[],
  limit = MAX_MEMBERS_ANSWERED,
): Promise<string[][]> => {
  const budget: ItemBudget = { left: limit };
  const members = await Promise.all(groupIds.map((groupId) => memberIdsOf(orgId, groupId, budget)));
  if (budget.left < 0) throw tooManyMembers(limit);
  return members;
};

/** Members a directory names must be users it sees who may join one more group (400 invalidValue naming the first that may not). */
const requireMembers = async (orgId: string, memberIds: readonly string[]) => {
  if (memberIds.length === 0) return;
  const read = await batchGetByKey(memberIds.map((id) => keys.user(orgId, id)));
  for (const id of memberIds) {
    const item = read.get(keys.user(orgId, id));
    const user = item && UserEntity.decode(item);
    if (!user || user.deprovisionedAt !== undefined) throw invalidValue(`members: no user ${id}`);
    if (user.userType !== 'STANDARD')
      throw invalidValue(`members: user ${id} is RESTRICTED, and groups hold STANDARD users only`);
    // Here rather than at the join, which would refuse it after the group was made or renamed.
    if ((user.userGroups?.size ?? 0) >= MAX_GRANTS_PER_HOLDER)
      throw invalidValue(
        `members: user ${id} is in ${MAX_GRANTS_PER_HOLDER} user groups already, the most one may`,
      );
  }
};

const PARALLEL_MEMBERSHIP_CHANGES = 4;

/**
 * Each membership change its own transaction (with its record), four at a time. Every change of a
 * round is settled before a failure is reported, so that an undo sees all that was written.
 */
const inRounds = async (ids: readonly string[], change: (id: string) => Promise<unknown>) => {
  for (let index = 0; index < ids.length; index += PARALLEL_MEMBERSHIP_CHANGES) {
    const round = await Promise.allSettled(ids.slice(index, index + PARALLEL_MEMBERSHIP_CHANGES).map(change));
    const failed = round.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
};

/** Takes the user out of these groups, each its own transaction with its record. */
export const leaveGroups = async (orgId: string, userId: string, groupIds: readonly string[]) => {
  await inRounds(groupIds, (groupId) => removeUserFromGroup(orgId, userId, groupId));
};

/** What one member's change writes in a transaction, its refusal tagged with the member. */
class MemberRefused extends Error {
  constructor(
    readonly userId: string,
    readonly refusal: Error,
  ) {
    super(refusal.message);
  }
}
const taggedWith = (userId: string, writes: Write[]): Write[] =>
  writes.map((write) =>
    write.fails
      ? { ...write, fails: (seen) => new MemberRefused(userId, write.fails?.(seen) as Error) }
      : write,
  );

/** DynamoDB's most items in one transaction. */
const MAX_TRANSACTION_ITEMS = 100;
const PARALLEL_TRANSACTIONS = 8;

/**
 * Membership changes, as many a transaction as its 100 items hold (a join writes the user, the
 * membership item and its record's items: about 24 a transaction), eight transactions at a time:
 * 20,000 members are about 840 transactions in about 105 round trips, within the function's 10 s.
 * Each change keeps its own record. A member whose change is moot (joined or gone already, or a
 * join the directory's DELETE overtook, `skipped`) is left out and the rest sent again; any other
 * refusal fails the whole change. Answers the members changed. Every transaction of a round is
 * settled before a failure is thrown, and what committed is in `changed` for an undo.
 */
const inBatches = async (
  userIds: readonly string[],
  writesOf: (userId: string) => Promise<Write[]>,
  skipped: (refusal: Error) => boolean,
  shared: Write[] = [],
  changed: string[] = [],
) => {
  const batches: { userId: string; writes: Write[] }[][] = [];
  let batch: { userId: string; writes: Write[] }[] = [];
  let items = shared.length;
  for (const userId of userIds) {
    const writes = taggedWith(userId, await writesOf(userId));
    if (batch.length > 0 && items + writes.length > MAX_TRANSACTION_ITEMS) {
      batches.push(batch);
      batch = [];
      items = shared.length;
    }
    batch.push({ userId, writes });
    items += writes.length;
  }
  if (batch.length > 0) batches.push(batch);
  const send = async (members: { userId: string; writes: Write[] }[]) => {
    let left = members;
    while (left.length > 0) {
      try {
        await transact([...shared, ...left.flatMap((member) => member.writes)]);
        changed.push(...left.map((member) => member.userId));
        return;
      } catch (error) {
        if (!(error instanceof MemberRefused)) throw error;
        if (!skipped(error.refusal)) throw error.refusal;
        left = left.filter((member) => member.userId !== error.userId);
      }
    }
  };
  for (let index = 0; index < batches.length; index += PARALLEL_TRANSACTIONS) {
    const round = await Promise.allSettled(batches.slice(index, index + PARALLEL_TRANSACTIONS).map(send));
    const failed = round.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
  return changed;
};

/**
 * Joins members to the group, as addUserToGroup does each. One its DELETE deprovisioned since
 * requireMembers read it does not join, as if the DELETE had come after this request (and taken
 * it out again); one a member already is left as it is.
 */
const joinAll = (orgId: string, groupId: string, userIds: readonly string[], changed: string[] = []) => {
  const now = Date.now();
  return inBatches(
    userIds,
    async (userId) => [
      ...joinGroupWrites(orgId, userId, groupId, now, { onlyNew: true, provisionedOnly: true }),
      ...(await auditWrites(membershipRecord(orgId, userId, groupId, 'user.group.added'), now)),
    ],
    (refusal) =>
      refusal instanceof AlreadyAsAsked || (refusal instanceof NotFound && refusal.entity === 'User'),
    [
      check(
        UserGroupEntity.key({ organizationId: orgId, id: groupId }),
        { condition: 'attribute_exists(pk) AND attribute_not_exists(lifecycle)' },
        () => new NotFound('User group', groupId),
      ),
    ],
    changed,
  );
};

/** Takes members out of the group, as removeUserFromGroup does each; one not in it is left as it is. */
const leaveAll = (orgId: string, groupId: string, userIds: readonly string[], changed: string[] = []) => {
  const now = Date.now();
  return inBatches(
    userIds,
    async (userId) => [
      ...leaveGroupWrites(orgId, userId, groupId, { requireUser: true, onlyMember: true }),
      ...(await auditWrites(membershipRecord(orgId, userId, groupId, 'user.group.removed'), now)),
    ],
    (refusal) => refusal instanceof AlreadyAsAsked,
    [],
    changed,
  );
};

/**
 * Applies the joins, then the leaves; answers how to undo them. When one fails (a member another
 * request gave their last free group since requireMembers read them, or a failure of the store),
 * the joins and leaves this request made are undone, each again idempotent, so the group's members
 * are as they were, and the failure is thrown. An undo that fails too is logged: the directory's
 * retry completes it.
 */
const applyMembership = async (
  orgId: string,
  groupId: string,
  changes: { joining: readonly string[]; leaving: readonly string[] },
) => {
  const joined: string[] = [];
  const left: string[] = [];
  const undo = async (cause: unknown) => {
    try {
      await leaveAll(orgId, groupId, joined);
      await joinAll(orgId, groupId, left);
    } catch (undoError) {
      logger.error('undo of a refused SCIM membership change failed: some of it stays applied', {
        organizationId: orgId,
        groupId,
        cause: cause instanceof Error ? cause.message : String(cause),
        error: undoError as Error,
      });
    }
  };
  try {
    await joinAll(orgId, groupId, changes.joining, joined);
    await leaveAll(orgId, groupId, changes.leaving, left);
  } catch (error) {
    await undo(error);
    throw error;
  }
  return { undo };
};

/**
 * What takes the group's members from `basis` to `wanted`, each joining member checked: without a
 * basis (a PUT), the members become exactly `wanted`; with one (a PATCH, applied to the members it
 * read), only what the PATCH itself added or removed changes, so members that another request
 * added or removed meanwhile stay as that request left them.
 */
const membershipChanges = async (
  orgId: string,
  groupId: string,
  wanted: readonly string[],
  basis?: readonly string[],
) => {
  const current = new Set(await memberIdsOf(orgId, groupId));
  const before = new Set(basis ?? current);
  const target = new Set(wanted);
  const joining = [...target].filter((id) => !before.has(id) && !current.has(id));
  await requireMembers(orgId, joining);
  return { joining, leaving: [...before].filter((id) => !target.has(id) && current.has(id)) };
};

export const createGroupFromDirectory = async (orgId: string, desired: DirectoryGroup, createdBy: string) => {
  await requireMembers(orgId, desired.members ?? []);
  const group = await createUserGroup({
    organizationId: orgId,
    name: desired.displayName,
    ...(desired.externalId !== undefined ? { externalId: desired.externalId } : {}),
    createdBy,
  });
  try {
    await applyMembership(orgId, group.id, { joining: desired.members ?? [], leaving: [] });
  } catch (error) {
    // A group made but not filled is no group the directory asked for, and its retry of the POST
    // would find the name taken: deleted again (its records say so).
    await deleteGroupFromDirectory(orgId, group.id).catch((undoError: unknown) =>
      logger.error('deleting a SCIM group whose members failed to join failed', {
        organizationId: orgId,
        groupId: group.id,
        error: undoError as Error,
      }),
    );
    throw error;
  }
  return group;
};

/**
 * Makes the group what the directory describes; what `desired` leaves out stays as it is, and
 * `membersBefore` (a PATCH's) limits the change to what the directory changed (membershipChanges).
 */
export const replaceGroupFromDirectory = async (
  orgId: string,
  groupId: string,
  desired: DirectoryGroupChange,
  updatedBy: string,
  membersBefore?: readonly string[],
) => {
  // Members are checked before anything changes: one the directory may not name (400) leaves the
  // group as it was, its name included (RFC 7644 section 3.5.2: a PATCH is all or nothing).
  const changes =
    desired.members === undefined
      ? undefined
      : await membershipChanges(orgId, groupId, desired.members, membersBefore);
  // The members first: a join refused there (undone with the rest) leaves the name as it was, and
  // a rename refused after them (the name taken meanwhile) undoes them.
  const membership = changes && (await applyMembership(orgId, groupId, changes));
  // Only the fields given: updateUserGroup re-reads the group, and a field passed unchanged would
  // write back what this request read, over another request's change since.
  const fields = {
    ...(desired.displayName !== undefined ? { name: desired.displayName } : {}),
    ...(desired.externalId !== undefined ? { externalId: desired.externalId } : {}),
  };
  if (Object.keys(fields).length === 0) return;
  try {
    await updateUserGroup(orgId, groupId, fields, updatedBy);
  } catch (error) {
    await membership?.undo(error);
    throw error;
  }
};

/**
 * Deletes the group, then its external id entry (an entry left behind finds no visible group). A
 * group an earlier DELETE left hidden half way (a directory retries a DELETE that failed) is
 * finished, not answered 404, so no member keeps it; one the directory never saw (none, or a copy
 * under way) is not found.
 */
export const deleteGroupFromDirectory = async (orgId: string, groupId: string) => {
  const group = await getUserGroup(orgId, groupId);
  if (!group || group.lifecycle === 'COPYING') throw new NotFound('Group', groupId);
  await deleteUserGroup(orgId, groupId);
  if (group.externalId !== undefined)
    await writeOne(externalIdRemoval(orgId, 'GROUP', group.externalId, groupId));
};
