import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../shared/audit/actions.js';
import {
  type AuditActor,
  type AuditOutcome,
  type AuditRecord,
  auditRecord,
} from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { type AuditSettings, DEFAULT_AUDIT_SETTINGS } from '../../shared/audit/settings.js';
import { Conflict } from '../../shared/domain/errors.js';
import {
  type AuditQuery,
  auditItems,
  auditSettings,
  auditWrites,
  queryAuditRecords,
  writeAuditRecord,
} from '../../shared/store/audit-records.js';
import { batchPut } from '../../shared/store/batch.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { AUDIT_INDEXES, keys } from '../../shared/store/keys.js';
import { createUser, setUserStatus } from '../../shared/store/user-repository.js';
import { create, put, transact } from '../../shared/store/writes.js';
import { createTestOrganization, getItem, uniqueEmail, useDatabase } from '../support/service.js';

useDatabase();

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** A small seeded generator (mulberry32), so a failing data set can be made again from the printed seed. */
const randomFrom = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
};

const names = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

/**
 * `count` records of one organization over `spanMillis` (several to a millisecond), by varied
 * actors on varied targets (a quarter of them on two), with every action and outcome.
 */
const generateRecords = (
  orgId: string,
  count: number,
  pools: { actors: string[]; targets: string[] },
  random: () => number,
  from: number,
  spanMillis: number,
): AuditRecord[] => {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  return Array.from({ length: count }, () => {
    const actor: AuditActor = { type: random() < 0.7 ? 'user' : 'client', id: pick(pools.actors) };
    const first = pick(pools.targets);
    let second = pick(pools.targets);
    while (second === first) second = pick(pools.targets);
    const targets = [
      { type: 'user', id: first },
      ...(random() < 0.25 ? [{ type: 'group', id: second }] : []),
    ];
    const roll = random();
    const outcome: AuditOutcome = roll < 0.8 ? 'success' : roll < 0.92 ? 'failure' : 'denied';
    return auditRecord(
      { organizationId: orgId, action: pick(AUDIT_ACTIONS), targets, outcome },
      { actor },
      from + Math.floor(random() * spanMillis),
    );
  });
};

/**
 * Makes the record in the middle of the time span the kind `filtersFor` samples (a failure of a
 * user action on two targets): a random set holds one only most of the time (seed 524621781 none).
 */
const withSample = (records: AuditRecord[]): AuditRecord[] => {
  const middle = [...records].sort((a, b) => a.time - b.time)[Math.floor(records.length / 2)] as AuditRecord;
  const first = middle.targets[0] as { type: string; id: string };
  Object.assign(middle, {
    action: 'user.updated',
    outcome: 'failure',
    targets: [first, { type: 'group', id: first.id === 'target-0' ? 'target-1' : 'target-0' }],
  });
  return records;
};

/** Stores the records the way the store does (their items), in bulk: parallel batches. */
const storeRecords = async (records: readonly AuditRecord[], settings: AuditSettings) => {
  const items = records.flatMap((record) => auditItems(record, settings));
  const slices = 8;
  const size = Math.ceil(items.length / slices);
  await Promise.all(
    Array.from({ length: slices }, (_, slice) => batchPut(items.slice(slice * size, (slice + 1) * size))),
  );
};

const setAuditSettings = (orgId: string, audit: AuditSettings) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: 'SET audit = :audit',
      ExpressionAttributeValues: { ':audit': audit },
    }),
  );

/**
 * Every page of a query, in order; checks each page's size and that paging ends. Every
 * organization's first record is its creation's ("the organization's own" below): left out, so a
 * test compares what it wrote itself.
 */
const readAll = async (orgId: string, query: AuditQuery, limit: number): Promise<AuditRecord[]> => {
  const records: AuditRecord[] = [];
  const own = (record: AuditRecord) =>
    !(record.action === 'organization.created' && record.targets[0]?.id === orgId);
  let before: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await queryAuditRecords(orgId, query, { limit, ...(before ? { before } : {}) });
    expect(page.records.length).toBeLessThanOrEqual(limit);
    records.push(...page.records.filter(own));
    if (page.before === undefined) return records;
    expect(pages, 'paging ends').toBeLessThan(200);
    before = page.before;
  }
};

/** What a query must answer, worked out from the records written: newest first. */
const expectedIds = (records: readonly AuditRecord[], query: AuditQuery): string[] =>
  records
    .filter(
      (record) =>
        (query.since === undefined || record.time >= query.since) &&
        (query.until === undefined || record.time < query.until) &&
        (query.action === undefined ||
          (query.action.endsWith('.')
            ? record.action.startsWith(query.action)
            : record.action === query.action)) &&
        (query.actorId === undefined || record.actor.id === query.actorId) &&
        (query.targetId === undefined || record.targets.some((target) => target.id === query.targetId)) &&
        (query.outcome === undefined || record.outcome === query.outcome),
    )
    .map((record) => record.id)
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));

const idsOf = (records: readonly AuditRecord[]) => records.map((record) => record.id);

/** The filters every data set is read back under; each names values its records hold. */
const filtersFor = (records: readonly AuditRecord[]): [string, AuditQuery][] => {
  const times = [...new Set(records.map((record) => record.time))].sort((a, b) => a - b);
  const since = times[Math.floor(times.length / 4)] as number;
  const until = times[Math.floor((times.length * 3) / 4)] as number;
  // A failure in the window on two targets: its second target is found by every filter below.
  const sample = records.find(
    (record) =>
      record.targets.length === 2 &&
      record.outcome === 'failure' &&
      record.action.startsWith('user.') &&
      record.time >= since &&
      record.time < until,
  ) as AuditRecord;
  const secondTarget = sample.targets[1]?.id as string;
  const actorId = sample.actor.id;
  return [
    ['no filter', {}],
    ['since and until', { since, until }],
    ['since only', { since: until }],
    ['until only', { until: since }],
    ['an exact action', { action: 'user.created' }],
    ['a namespace', { action: 'user.' }],
    ['a deeper prefix', { action: 'user.role.' }],
    ['an actor', { actorId }],
    ['a target, also where it is the second', { targetId: secondTarget }],
    ['failures', { outcome: 'failure' }],
    ['denials', { outcome: 'denied' }],
    ['successes', { outcome: 'success' }],
    ['an actor and a namespace', { actorId, action: 'user.' }],
    ['an actor and an exact action', { actorId, action: sample.action }],
    ['a target, a failure and a time window', { targetId: secondTarget, outcome: 'failure', since, until }],
  ];
};

describe('audit records at scale', () => {
  const oneShard = { orgId: '', records: [] as AuditRecord[] };
  const threeShards = { orgId: '', records: [] as AuditRecord[] };

  beforeAll(async () => {
    const random = randomFrom(SEED);
    console.log(`audit records data set: seed ${SEED}`);
    const now = Date.now();
    oneShard.orgId = (await createTestOrganization()).id;
    // A fresh organization: no process has its settings cached yet.
    threeShards.orgId = (await createTestOrganization()).id;
    await setAuditSettings(threeShards.orgId, { retentionDays: 30, shards: 3 });
    oneShard.records = withSample(
      generateRecords(
        oneShard.orgId,
        10_000,
        { actors: names('actor', 20), targets: names('target', 100) },
        random,
        now - 4_000,
        4_000,
      ),
    );
    // Partly the same actor and target ids as the first organization's, partly its own.
    threeShards.records = withSample(
      generateRecords(
        threeShards.orgId,
        1_500,
        {
          actors: [...names('actor', 10), ...names('b-actor', 10)],
          targets: [...names('target', 50), ...names('b-target', 50)],
        },
        random,
        now - 4_000,
        4_000,
      ),
    );
    const started = Date.now();
    await Promise.all([
      storeRecords(oneShard.records, DEFAULT_AUDIT_SETTINGS),
      storeRecords(threeShards.records, { retentionDays: 30, shards: 3 }),
    ]);
    console.log(
      `stored ${oneShard.records.length + threeShards.records.length} audit records in ${Date.now() - started} ms`,
    );
  }, 300_000); // 11,500 items: minutes when DynamoDB Local serves the whole suite at once

  it('answers every record of one shard exactly once, newest first, under each filter', async () => {
    for (const [label, query] of filtersFor(oneShard.records)) {
      const expected = expectedIds(oneShard.records, query);
      expect(expected.length, label).toBeGreaterThan(0);
      expect(idsOf(await readAll(oneShard.orgId, query, 1000)), label).toEqual(expected);
    }
  });

  it('answers every record of three shards exactly once, newest first, under each filter', async () => {
    for (const [label, query] of filtersFor(threeShards.records)) {
      const expected = expectedIds(threeShards.records, query);
      expect(expected.length, label).toBeGreaterThan(0);
      expect(idsOf(await readAll(threeShards.orgId, query, 1000)), label).toEqual(expected);
    }
  });

  it('pages through three shards in small pages too', async () => {
    for (const [query, limit] of [
      [{}, 97],
      [{ action: 'user.role.' }, 7],
    ] as const) {
      expect(idsOf(await readAll(threeShards.orgId, query, limit))).toEqual(
        expectedIds(threeShards.records, query),
      );
    }
  });

  it('answers the records whole: what was written is what is read', async () => {
    const newest = { records: (await readAll(oneShard.orgId, {}, 1000)).slice(0, 5) };
    const byId = new Map(oneShard.records.map((record) => [record.id, record]));
    expect(newest.records).toEqual(newest.records.map((record) => byId.get(record.id)));
  });

  it("never answers another organization's records, whichever ids a filter names", async () => {
    const own = new Set(idsOf(oneShard.records));
    // Positive control: the other organization holds records of these actors and targets.
    for (const query of [{ actorId: 'b-actor-1' }, { targetId: 'b-target-1' }]) {
      expect((await readAll(threeShards.orgId, query, 1000)).length).toBeGreaterThan(0);
      expect(await readAll(oneShard.orgId, query, 1000)).toEqual([]);
    }
    // Ids both organizations use: only the first organization's records.
    const otherSecondTarget = threeShards.records.find(
      (record) => record.targets.length === 2 && record.targets[1]?.id.startsWith('target-'),
    )?.targets[1]?.id as string;
    for (const query of [
      { actorId: 'actor-1' },
      { targetId: otherSecondTarget },
      { actorId: 'actor-1', action: 'user.' },
      { outcome: 'denied' as const },
      {},
    ]) {
      const answered = await readAll(oneShard.orgId, query, 1000);
      expect(answered.every((record) => own.has(record.id) && record.organizationId === oneShard.orgId)).toBe(
        true,
      );
      expect(idsOf(answered)).toEqual(expectedIds(oneShard.records, query));
    }
  });
});

describe('audit records ride with their change', () => {
  const orgId = { value: '' };
  beforeAll(async () => {
    orgId.value = (await createTestOrganization()).id;
  });

  /** Every stored item of the organization's records (records and target copies), as text. */
  const storedText = async (org: string) => {
    const records = await readAll(org, {}, 1000);
    const items = await Promise.all(
      records.flatMap((record) => [
        getItem(keys.auditRecord(org, record.id)),
        ...record.targets
          .slice(1)
          .map((_, index) => getItem(keys.auditTargetCopy(org, record.id, index + 1))),
      ]),
    );
    return JSON.stringify(items);
  };

  it('records the creation of a user once, by the scope actor, without any secret', async () => {
    const admin: AuditActor = { type: 'user', id: 'admin-7', ip: '198.51.100.7', userAgent: 'Browser/1' };
    const email = uniqueEmail('audited');
    const { user, joinEmail } = await withAuditScope({ actor: admin, requestId: 'req-create-1' }, () =>
      createUser({
        organizationId: orgId.value,
        email,
        name: 'Audited',
        userType: 'STANDARD',
        createdBy: admin.id,
      }),
    );
    const records = await readAll(orgId.value, {}, 100);
    expect(records).toHaveLength(1);
    const [record] = records as [AuditRecord];
    expect(record).toMatchObject({
      organizationId: orgId.value,
      action: 'user.created',
      actor: admin,
      targets: [{ type: 'user', id: user.id, name: email }],
      outcome: 'success',
      requestId: 'req-create-1',
    });
    expect(record.time).toBe(user.createdAt);
    expect(record.changes).toMatchObject({
      email: { from: null, to: email },
      name: { from: null, to: 'Audited' },
      invitationDigest: 'changed',
    });
    const stored = await getItem(keys.user(orgId.value, user.id));
    const digest = stored?.invitationDigest as string;
    expect(digest.length).toBeGreaterThan(0);
    const text = await storedText(orgId.value);
    expect(text).toContain(user.id);
    expect(text).not.toContain(joinEmail.invitationToken);
    expect(text).not.toContain(digest);
    expect(await readAll(orgId.value, { targetId: user.id, action: 'user.created' }, 10)).toEqual(records);
  });

  it('records nothing when the creation is refused for a taken email', async () => {
    const email = uniqueEmail('taken');
    const { user } = await createUser({
      organizationId: orgId.value,
      email,
      name: 'First',
      userType: 'STANDARD',
      createdBy: 't',
    });
    const before = idsOf(await readAll(orgId.value, {}, 100));
    for (const duplicate of [email, email.toUpperCase()]) {
      await expect(
        createUser({
          organizationId: orgId.value,
          email: duplicate,
          name: 'Second',
          userType: 'STANDARD',
          createdBy: 't',
        }),
      ).rejects.toBeInstanceOf(Conflict);
    }
    expect(idsOf(await readAll(orgId.value, {}, 100))).toEqual(before);
    // Outside any scope the system is the actor.
    const [created] = await readAll(orgId.value, { targetId: user.id }, 10);
    expect(created?.actor).toEqual({ type: 'system', id: 'idp' });
  });

  it('records a status change once, and nothing for a status the user has already', async () => {
    const { user } = await createUser({
      organizationId: orgId.value,
      email: uniqueEmail('status'),
      name: 'Status',
      userType: 'STANDARD',
      createdBy: 't',
    });
    await withAuditScope({ actor: { type: 'client', id: 'client-9' } }, () =>
      setUserStatus(orgId.value, user.id, 'INACTIVE'),
    );
    await setUserStatus(orgId.value, user.id, 'INACTIVE');
    const changes = await readAll(orgId.value, { targetId: user.id, action: 'user.status.changed' }, 10);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      actor: { type: 'client', id: 'client-9' },
      changes: { status: { from: 'ACTIVE', to: 'INACTIVE' } },
    });
  });

  it('writes the record in the transaction of its change: a refused change leaves no record', async () => {
    const org = (await createTestOrganization()).id;
    const item = { pk: `TEST#${org}`, sk: 'ITEM', value: 1 };
    const event = {
      organizationId: org,
      action: 'group.created' as const,
      targets: [{ type: 'group', id: 'g-1' }],
    };
    // Positive control: the same writes with a change that succeeds.
    await transact([...(await auditWrites(event)), put(item)]);
    expect(await readAll(org, {}, 10)).toHaveLength(1);
    await expect(
      transact([...(await auditWrites(event)), create(item, () => new Conflict('Item', 'exists'))]),
    ).rejects.toBeInstanceOf(Conflict);
    expect(await readAll(org, {}, 10)).toHaveLength(1);
  });
});

describe('audit record storage', () => {
  it('expires a record after the default 90 days, its target copies with it', async () => {
    const org = (await createTestOrganization()).id;
    const now = 1_790_000_000_999;
    const record = await writeAuditRecord(
      {
        organizationId: org,
        action: 'user.group.added',
        targets: [
          { type: 'user', id: 'u-1' },
          { type: 'group', id: 'g-1' },
        ],
      },
      now,
    );
    const expiresAt = Math.floor(now / 1000) + 90 * 86_400;
    expect((await getItem(keys.auditRecord(org, record.id)))?.expiresAt).toBe(expiresAt);
    expect((await getItem(keys.auditTargetCopy(org, record.id, 1)))?.expiresAt).toBe(expiresAt);
    expect(idsOf(await readAll(org, { targetId: 'g-1' }, 10))).toEqual([record.id]);
  });

  it("expires a record after the organization's retention", async () => {
    const org = (await createTestOrganization()).id;
    await setAuditSettings(org, { retentionDays: 7, shards: 2 });
    const now = 1_790_000_000_000;
    const record = await writeAuditRecord({ organizationId: org, action: 'user.created', targets: [] }, now);
    expect((await getItem(keys.auditRecord(org, record.id)))?.expiresAt).toBe(1_790_000_000 + 7 * 86_400);
    expect(idsOf(await readAll(org, {}, 10))).toEqual([record.id]);
  });

  it('indexes a target named twice once, so paging by it ends', async () => {
    const org = (await createTestOrganization()).id;
    const now = Date.now();
    const older = await writeAuditRecord(
      { organizationId: org, action: 'group.updated', targets: [{ type: 'group', id: 'g-2' }] },
      now - 2,
    );
    const twice = await writeAuditRecord(
      {
        organizationId: org,
        action: 'user.group.added',
        targets: [
          { type: 'user', id: 'u-2' },
          { type: 'group', id: 'g-2' },
          { type: 'group', id: 'g-2' },
        ],
      },
      now - 1,
    );
    const newer = await writeAuditRecord(
      { organizationId: org, action: 'group.updated', targets: [{ type: 'group', id: 'g-2' }] },
      now,
    );
    const { index, partitionKey, sortKey } = AUDIT_INDEXES.target;
    const indexed = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND #sk = :id',
        ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
        ExpressionAttributeValues: { ':pk': keys.auditIndexKey(org, 'target', 'g-2', 0), ':id': twice.id },
      }),
    );
    expect(indexed.Items).toHaveLength(1);
    for (const limit of [1, 2]) {
      expect(idsOf(await readAll(org, { targetId: 'g-2' }, limit))).toEqual([newer.id, twice.id, older.id]);
    }
  });
});

describe("an organization's own record", () => {
  it('is its creation, by the scope actor, naming it, with what it was created with', async () => {
    const organization = await withAuditScope({ actor: { type: 'operator', id: 'alice' } }, () =>
      createTestOrganization(),
    );
    const { records } = await queryAuditRecords(organization.id, {}, { limit: 10 });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      action: 'organization.created',
      actor: { type: 'operator', id: 'alice' },
      targets: [{ type: 'organization', id: organization.id, name: organization.name }],
      changes: { name: { from: null, to: organization.name } },
    });
  });
});

describe('a query after the shards grew', () => {
  it('reads every shard writers may use, whatever settings this instance remembers', async () => {
    const orgId = (await createTestOrganization()).id;
    // This process remembers one shard, as an instance that wrote a moment ago would.
    expect((await auditSettings(orgId)).shards).toBe(1);
    await setAuditSettings(orgId, { retentionDays: 90, shards: 3 });
    const records = Array.from({ length: 30 }, (_, index) => ({
      id: ulid(Date.now() - index),
      organizationId: orgId,
      time: Date.now() - index,
      action: 'user.updated' as const,
      actor: { type: 'client' as const, id: 'grown' },
      targets: [{ type: 'user', id: `user-${index}` }],
      outcome: 'success' as const,
    }));
    // Written by instances that know the new settings: spread over the three shards.
    await batchPut(records.flatMap((record) => auditItems(record, { retentionDays: 90, shards: 3 })));
    const page = await queryAuditRecords(orgId, { actorId: 'grown' }, { limit: 100 });
    expect(page.records.map((record) => record.id).sort()).toEqual(records.map((record) => record.id).sort());
  });
});

describe('a namespace filter beside another', () => {
  it('holds when the target id looks like the namespace', async () => {
    const orgId = (await createTestOrganization()).id;
    const onTarget = (action: 'role.archived' | 'user.created', at: number) => ({
      id: ulid(at),
      organizationId: orgId,
      time: at,
      action,
      actor: { type: 'client' as const, id: 'looker' },
      targets: [{ type: 'role', id: 'user.' }],
      outcome: 'success' as const,
    });
    const now = Date.now();
    const [archived, created] = [onTarget('role.archived', now - 2), onTarget('user.created', now - 1)];
    await batchPut([archived, created].flatMap((record) => auditItems(record, DEFAULT_AUDIT_SETTINGS)));
    // Positive control: by the target alone, both.
    expect(idsOf(await readAll(orgId, { targetId: 'user.' }, 100))).toEqual([created.id, archived.id]);
    expect(idsOf(await readAll(orgId, { targetId: 'user.', action: 'user.' }, 100))).toEqual([created.id]);
    expect(idsOf(await readAll(orgId, { actorId: 'looker', action: 'role.' }, 100))).toEqual([archived.id]);
  });
});
