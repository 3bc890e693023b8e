import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { NotFound } from '../../shared/domain/errors.js';
import { MAX_GRANTS_PER_HOLDER } from '../../shared/domain/limits.js';
import { ScimError } from '../../shared/scim/errors.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { holdersOfExternalId } from '../../shared/store/external-ids.js';
import { keys } from '../../shared/store/keys.js';
import {
  createGroupFromDirectory,
  deleteGroupFromDirectory,
  groupsByExternalId,
  membersOf,
  membersOfGroups,
  replaceGroupFromDirectory,
} from '../../shared/store/scim-groups.js';
import { createUserFromDirectory, deprovisionUser } from '../../shared/store/scim-users.js';
import { addUserToGroup } from '../../shared/store/user-grants.js';
import { getUserGroup } from '../../shared/store/user-group-repository.js';
import { getUser } from '../../shared/store/user-repository.js';
import { beforeTransaction, sameKey } from '../support/interleave.js';
import { createTestOrganization, useDatabase } from '../support/service.js';
import { seedUsers } from '../support/user-seeding.js';

useDatabase();

const person = async (org: string, label: string) =>
  (
    await createUserFromDirectory(
      org,
      {
        email: `${label}-${Math.random().toString(36).slice(2, 8)}@groups.example`,
        name: label,
        active: true,
      },
      'dir',
      3600,
    )
  ).user.id;

describe('a group a directory changes', () => {
  it("changes only what a PATCH changed, keeping a member another request added after the PATCH's read", async () => {
    const org = (await createTestOrganization()).id;
    const [early, meanwhile, patched] = [
      await person(org, 'early'),
      await person(org, 'meanwhile'),
      await person(org, 'patched'),
    ];
    const group = await createGroupFromDirectory(
      org,
      { displayName: 'Side by side', members: [early] },
      'dir',
    );
    // The PATCH read the members as [early]; another request adds `meanwhile` before it writes.
    const read = await membersOf(org, group.id);
    await addUserToGroup(org, meanwhile, group.id);
    // The PATCH removes `early` and adds `patched`: `meanwhile` is none of its business.
    await replaceGroupFromDirectory(
      org,
      group.id,
      { displayName: 'Side by side', members: [patched] },
      'dir',
      read,
    );
    expect((await membersOf(org, group.id)).sort()).toEqual([meanwhile, patched].sort());

    // Positive control of the difference: a PUT (no members read before) makes them exactly its own.
    await replaceGroupFromDirectory(org, group.id, { displayName: 'Side by side', members: [early] }, 'dir');
    expect(await membersOf(org, group.id)).toEqual([early]);
  });

  it('leaves a member a PATCH removed that another request removed first, and adds nobody twice', async () => {
    const org = (await createTestOrganization()).id;
    const [staying, leaving] = [await person(org, 'staying'), await person(org, 'leaving')];
    const group = await createGroupFromDirectory(
      org,
      { displayName: 'Twice', members: [staying, leaving] },
      'dir',
    );
    const read = await membersOf(org, group.id);
    await replaceGroupFromDirectory(org, group.id, { displayName: 'Twice', members: [staying] }, 'dir', read);
    await replaceGroupFromDirectory(org, group.id, { displayName: 'Twice', members: [staying] }, 'dir', read);
    expect(await membersOf(org, group.id)).toEqual([staying]);
  });

  it('refuses a member who is in the most groups one may before it makes or renames anything', async () => {
    const org = (await createTestOrganization()).id;
    const member = await person(org, 'busy');
    // The user as if in groups already (the count the join checks), one short of the most.
    const inGroups = (count: number) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.user(org, member),
          UpdateExpression: 'SET userGroups = :groups',
          ExpressionAttributeValues: {
            ':groups': new Set(Array.from({ length: count }, (_, index) => `elsewhere-${index}`)),
          },
        }),
      );
    await inGroups(MAX_GRANTS_PER_HOLDER - 1);
    // Positive control: one more group is allowed.
    await createGroupFromDirectory(
      org,
      { displayName: 'Last one', externalId: 'last', members: [member] },
      'dir',
    );
    expect(await groupsByExternalId(org, 'last')).toHaveLength(1);

    await inGroups(MAX_GRANTS_PER_HOLDER);
    await expect(
      createGroupFromDirectory(
        org,
        { displayName: 'One too many', externalId: 'too-many', members: [member] },
        'dir',
      ),
    ).rejects.toMatchObject({ status: 400, scimType: 'invalidValue' });
    expect(await groupsByExternalId(org, 'too-many')).toEqual([]);
    const kept = await createGroupFromDirectory(org, { displayName: 'Kept', members: [] }, 'dir');
    await expect(
      replaceGroupFromDirectory(org, kept.id, { displayName: 'Renamed', members: [member] }, 'dir', []),
    ).rejects.toBeInstanceOf(ScimError);
    expect((await getUserGroup(org, kept.id))?.name).toBe('Kept');
  });
});

describe('a member the directory deletes while a group takes them', () => {
  it('leaves a group the user joined between the DELETE reading them and its last write', async () => {
    const org = (await createTestOrganization()).id;
    const leaver = await person(org, 'leaver');
    const group = await createGroupFromDirectory(org, { displayName: 'Meanwhile', members: [] }, 'dir');
    // A PATCH's join, committed while the DELETE runs: it found the user still provisioned.
    const join = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('deprovisionedAt')),
      () => addUserToGroup(org, leaver, group.id),
    );
    try {
      await deprovisionUser(org, leaver);
    } finally {
      join.stop();
    }
    expect(join.ran).toBe(true);
    expect(await membersOf(org, group.id)).toEqual([]);
    const after = await getUser(org, leaver, true);
    expect(after?.deprovisionedAt).toEqual(expect.any(Number));
    expect(after?.userGroups).toBeUndefined();
  });

  it('adds no member a DELETE deprovisioned after the PATCH checked its members; the others join', async () => {
    const org = (await createTestOrganization()).id;
    const [stays, leaver] = [await person(org, 'stays'), await person(org, 'leaver')];
    const group = await createGroupFromDirectory(org, { displayName: 'Checked', members: [] }, 'dir');
    // The DELETE commits just before the leaver's join is sent, after the PATCH checked the members.
    const deletion = beforeTransaction(
      (items) => items.some((item) => sameKey(item.Update?.Key, keys.user(org, leaver))),
      () => deprovisionUser(org, leaver),
    );
    try {
      await replaceGroupFromDirectory(
        org,
        group.id,
        { displayName: 'Checked', members: [stays, leaver] },
        'dir',
        [],
      );
    } finally {
      deletion.stop();
    }
    expect(deletion.ran).toBe(true);
    // Positive control: the member who stayed provisioned joined through the same PATCH.
    expect(await membersOf(org, group.id)).toEqual([stays]);
    expect((await getUser(org, leaver, true))?.userGroups).toBeUndefined();
  });
});

describe('a group a directory deletes', () => {
  it('finishes a DELETE a failure left half way when the directory sends it again', async () => {
    const org = (await createTestOrganization()).id;
    const [first, second] = await Promise.all([person(org, 'first'), person(org, 'second')]);
    const group = await createGroupFromDirectory(
      org,
      { displayName: 'Leaving soon', externalId: 'ext-half-way', members: [first, second] },
      'dir',
    );
    // An outage as the first member leaves: the group is hidden, its members not all gone.
    const outage = beforeTransaction(
      (items) => items.some((item) => sameKey(item.Update?.Key, keys.user(org, first))),
      () => Promise.reject(Object.assign(new Error('injected outage'), { name: 'ServiceUnavailable' })),
    );
    await expect(deleteGroupFromDirectory(org, group.id)).rejects.toThrow('injected outage');
    outage.stop();
    expect((await getUserGroup(org, group.id))?.lifecycle).toBe('DELETING');
    expect((await getUser(org, first, true))?.userGroups?.has(group.id)).toBe(true);

    // The directory sends the DELETE again: finished, not a 404 leaving the member holding it.
    await deleteGroupFromDirectory(org, group.id);
    expect(await getUserGroup(org, group.id)).toBeUndefined();
    expect(await membersOf(org, group.id)).toEqual([]);
    for (const member of [first, second])
      expect((await getUser(org, member, true))?.userGroups?.has(group.id) ?? false).toBe(false);
    expect(await holdersOfExternalId(org, 'GROUP', 'ext-half-way')).toEqual([]);
    // Now it is gone: another DELETE is a 404.
    await expect(deleteGroupFromDirectory(org, group.id)).rejects.toBeInstanceOf(NotFound);
  });
});

describe('the members one answer names', () => {
  it('are read for all its groups under one limit, and refused (400 tooMany) past it, not cut', async () => {
    const org = (await createTestOrganization()).id;
    const [first, both, second] = [
      await person(org, 'first'),
      await person(org, 'both'),
      await person(org, 'second'),
    ];
    const one = await createGroupFromDirectory(org, { displayName: 'One', members: [first, both] }, 'dir');
    const two = await createGroupFromDirectory(org, { displayName: 'Two', members: [both, second] }, 'dir');
    // Four memberships in all: a limit of four answers them, each group its own.
    const read = await membersOfGroups(org, [one.id, two.id], 4);
    expect(read.map((ids) => [...ids].sort())).toEqual([[first, both].sort(), [both, second].sort()]);
    // Three: each group alone is within it, the two together are not.
    expect((await membersOfGroups(org, [one.id], 3))[0]?.length).toBe(2);
    const refused = await membersOfGroups(org, [one.id, two.id], 3).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ScimError);
    expect(refused).toMatchObject({ status: 400, scimType: 'tooMany' });
    expect((refused as Error).message).toContain('excludedAttributes=members');
  });
});

describe('a group a directory fills with many members', () => {
  it('joins them many to a transaction, transactions side by side: a few hundred round trips for 20,000', {
    timeout: 120_000,
  }, async () => {
    const org = (await createTestOrganization()).id;
    const MEMBERS = 240;
    const ids = await seedUsers(
      org,
      MEMBERS,
      () => true,
      () => 'ACTIVE',
    );
    // Every transaction sent, and the rounds: a round starts when one is sent while none is in flight.
    const sent: number[] = [];
    const inFlight = { now: 0, rounds: 0 };
    const name = `count-transactions-${Math.random()}`;
    db().middlewareStack.add(
      (next) => async (args) => {
        const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
        if (!items) return next(args);
        sent.push(items.length);
        if (inFlight.now === 0) inFlight.rounds += 1;
        inFlight.now += 1;
        try {
          return await next(args);
        } finally {
          inFlight.now -= 1;
        }
      },
      { step: 'initialize', name },
    );
    let group: Awaited<ReturnType<typeof createGroupFromDirectory>>;
    try {
      group = await createGroupFromDirectory(org, { displayName: 'Many', members: ids }, 'dir');
    } finally {
      db().middlewareStack.remove(name);
    }
    expect((await membersOf(org, group.id)).sort()).toEqual([...ids].sort());
    // The group's creation, then the joins: 24 a transaction (the group's check and 4 items each).
    expect(Math.max(...sent)).toBeLessThanOrEqual(100);
    const joins = sent.length - 1;
    expect(joins).toBe(Math.ceil(MEMBERS / 24));
    // Eight at a time: the creation's round, then ceil(10 / 8) rounds of joins.
    expect(inFlight.rounds).toBeLessThanOrEqual(1 + Math.ceil(joins / 8));
    // At that rate the documented 20,000 members are ceil(20,000 / 24) = 834 transactions in
    // 105 rounds: about 1 s at 10 ms a round trip (one a member, four at a time, was 5,000).
  });
});
