import { randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { queryAuditRecords } from '../../shared/store/audit-records.js';
import { batchGet, batchPut } from '../../shared/store/batch.js';
import { keys } from '../../shared/store/keys.js';
import { deleteUserGroup, duplicateUserGroup } from '../../shared/store/user-group-lifecycle.js';
import {
  countUserGroups,
  createUserGroup,
  getUserGroup,
  listUserGroups,
  memberIdsOf,
} from '../../shared/store/user-group-repository.js';
import { storedUser, type UserRecord } from '../../shared/store/user-repository.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/** Five transactions of 50 members each way: rounds of four transactions at a time (4, 1). */
const MEMBERS = 250;

useDatabase();

/** Writes `count` users that are members of `groupId`, both sides, in bulk. */
const seedMembers = async (orgId: string, groupId: string, count: number): Promise<string[]> => {
  const now = Date.now();
  const items: Record<string, unknown>[] = [];
  const ids: string[] = [];
  for (let sequence = 1; sequence <= count; sequence++) {
    const user: UserRecord = {
      id: randomUUID(),
      organizationId: orgId,
      email: `member${sequence}@groups.example`,
      name: `Member ${sequence}`,
      status: 'ACTIVE',
      userType: 'STANDARD',
      sequence,
      createdAt: now,
      updatedAt: now,
      createdBy: 'seed',
      userGroups: new Set([groupId]),
      canSendEmail: true,
      isInitial: sequence === 1,
      version: 1,
    };
    ids.push(user.id);
    items.push(storedUser(user), {
      ...keys.groupMember(orgId, groupId, user.id),
      userId: user.id,
      groupId,
      addedAt: Date.now(),
    });
  }
  const slices = 8;
  const size = Math.ceil(items.length / slices);
  await Promise.all(
    Array.from({ length: slices }, (_, slice) => batchPut(items.slice(slice * size, (slice + 1) * size))),
  );
  return ids;
};

/** For every user: the group ids in its `userGroups` set. */
const groupsOfUsers = async (orgId: string, userIds: readonly string[]) =>
  new Map(
    (await batchGet(userIds.map((id) => keys.user(orgId, id)))).map((item) => [
      String(item.id),
      new Set([...((item.userGroups as Set<string> | undefined) ?? [])]),
    ]),
  );

/** Makes the `failAt`-th transaction from now on fail, as a crash or an outage would. */
const failTransactionNumber = (failAt: number) => {
  let seen = 0;
  const send = DynamoDBDocumentClient.prototype.send;
  DynamoDBDocumentClient.prototype.send = function failing(
    this: unknown,
    command: unknown,
    ...rest: unknown[]
  ) {
    if (command instanceof TransactWriteCommand && ++seen === failAt) {
      return Promise.reject(Object.assign(new Error('injected outage'), { name: 'ServiceUnavailable' }));
    }
    return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
  } as typeof send;
  return () => {
    DynamoDBDocumentClient.prototype.send = send;
  };
};

/** The actions of the organization's group records, oldest first, and the ids each names. */
const groupRecords = async (orgId: string) =>
  (await queryAuditRecords(orgId, { action: 'group.' }, { limit: 100 })).records
    .reverse()
    .map((record) => ({ action: record.action, targets: record.targets.map((target) => target.id) }));

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe(`a user group with ${MEMBERS} members`, () => {
  it('is duplicated and deleted in transactions within DynamoDB limits, members staying consistent', async () => {
    const orgId = (await createTestOrganization()).id;
    const source = await createUserGroup({
      organizationId: orgId,
      name: 'Everyone',
      number: '1',
      createdBy: 't',
    });
    const memberIds = await seedMembers(orgId, source.id, MEMBERS);

    let started = Date.now();
    const copy = await duplicateUserGroup(orgId, source.id, 't', async () => {});
    console.log(`duplicated ${MEMBERS} members in ${Date.now() - started} ms`);
    expect(copy.name).toBe('Copy of Everyone');
    expect(copy.number).toBeUndefined();
    expect((await memberIdsOf(orgId, copy.id)).sort()).toEqual([...memberIds].sort());
    const afterCopy = await groupsOfUsers(orgId, memberIds);
    expect([...afterCopy.values()].every((groups) => groups.has(copy.id) && groups.has(source.id))).toBe(
      true,
    );
    expect(await countUserGroups(orgId)).toBe(2);
    // One record for 10 transactions: the copy's, naming it and its source.
    expect(await groupRecords(orgId)).toEqual([
      { action: 'group.created', targets: [source.id] },
      { action: 'group.duplicated', targets: [copy.id, source.id] },
    ]);

    started = Date.now();
    await deleteUserGroup(orgId, source.id);
    console.log(`deleted a group of ${MEMBERS} members in ${Date.now() - started} ms`);
    expect(await getUserGroup(orgId, source.id)).toBeUndefined();
    expect(await memberIdsOf(orgId, source.id)).toEqual([]);
    const afterDelete = await groupsOfUsers(orgId, memberIds);
    expect([...afterDelete.values()].every((groups) => !groups.has(source.id) && groups.has(copy.id))).toBe(
      true,
    );
    expect(await countUserGroups(orgId)).toBe(1);
    expect((await listUserGroups(orgId, 0, 10)).groups.map((group) => group.id)).toEqual([copy.id]);
    expect((await groupRecords(orgId)).at(-1)).toEqual({ action: 'group.deleted', targets: [source.id] });
    expect(await groupRecords(orgId)).toHaveLength(3);
  }, 300_000);

  // That a half-deleted group grants nothing: permission-removals.int.test.ts.
  it('resumes a delete that failed half way; the group is hidden meanwhile', async () => {
    const orgId = (await createTestOrganization()).id;
    const group = await createUserGroup({ organizationId: orgId, name: 'Crashy', createdBy: 't' });
    const memberIds = await seedMembers(orgId, group.id, MEMBERS);

    restore = failTransactionNumber(4);
    await expect(deleteUserGroup(orgId, group.id)).rejects.toThrow('injected outage');
    restore();

    // Half done: hidden (not listed, not counted, name free), members changed in whole pairs.
    expect((await getUserGroup(orgId, group.id))?.lifecycle).toBe('DELETING');
    expect(await countUserGroups(orgId)).toBe(0);
    expect((await listUserGroups(orgId, 0, 10)).groups).toEqual([]);
    const remaining = new Set(await memberIdsOf(orgId, group.id));
    expect(remaining.size).toBeGreaterThan(0);
    expect(remaining.size).toBeLessThan(memberIds.length);
    for (const [userId, groups] of await groupsOfUsers(orgId, memberIds)) {
      expect(groups.has(group.id), `user ${userId}`).toBe(remaining.has(userId));
    }
    // The hiding committed the deletion, so its record is there already; finishing adds none.
    const deleted = { action: 'group.deleted', targets: [group.id] };
    expect(await groupRecords(orgId)).toEqual([{ action: 'group.created', targets: [group.id] }, deleted]);
    await createUserGroup({ organizationId: orgId, name: 'Crashy', createdBy: 't' });

    await deleteUserGroup(orgId, group.id);
    expect((await groupRecords(orgId)).filter((record) => record.action === 'group.deleted')).toEqual([
      deleted,
    ]);
    expect(await getUserGroup(orgId, group.id)).toBeUndefined();
    expect(await memberIdsOf(orgId, group.id)).toEqual([]);
    expect([...(await groupsOfUsers(orgId, memberIds)).values()].some((groups) => groups.has(group.id))).toBe(
      false,
    );
  }, 300_000);

  it('undoes a duplicate that failed half way', async () => {
    const orgId = (await createTestOrganization()).id;
    const group = await createUserGroup({ organizationId: orgId, name: 'Team', createdBy: 't' });
    const memberIds = await seedMembers(orgId, group.id, MEMBERS);

    restore = failTransactionNumber(4);
    await expect(duplicateUserGroup(orgId, group.id, 't', async () => {})).rejects.toThrow('injected outage');
    restore();

    expect(await countUserGroups(orgId)).toBe(1);
    expect((await listUserGroups(orgId, 0, 10)).groups.map((listed) => listed.id)).toEqual([group.id]);
    for (const groups of (await groupsOfUsers(orgId, memberIds)).values()) {
      expect([...groups]).toEqual([group.id]);
    }
    // An undone copy leaves no record.
    expect((await groupRecords(orgId)).map((record) => record.action)).toEqual(['group.created']);
    // The name was released with the partial copy.
    const copy = await duplicateUserGroup(orgId, group.id, 't', async () => {});
    expect(copy.name).toBe('Copy of Team');
    expect((await groupRecords(orgId)).at(-1)).toEqual({
      action: 'group.duplicated',
      targets: [copy.id, group.id],
    });
  }, 300_000);
});
