import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_PAGE_SIZE, HOUR_MILLIS, hourOf } from '../../shared/audit/digest.js';
import type { AuditRecord } from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { countIssuedToken, recordEndedMinutes } from '../../shared/auth/issued-token-records.js';
import { publicJwks, rotateSigningKeys } from '../../shared/auth/signing-keys.js';
import { reloadConfig } from '../../shared/config.js';
import { verifyDigests, writeHourDigest } from '../../shared/store/audit-digests.js';
import { auditItems, queryAuditRecords, writeAuditRecord } from '../../shared/store/audit-records.js';
import { batchPut } from '../../shared/store/batch.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { AUDIT_INDEXES, keys } from '../../shared/store/keys.js';
import { overwriteStoredRecord } from '../support/audit-items.js';
import { useDatabase } from '../support/database.js';
import { beforeCommand } from '../support/interleave.js';
import { createTestOrganization } from '../support/records.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';

/**
 * Tamper evidence (shared/audit/digest.ts, shared/store/audit-digests.ts): hourly signed digests
 * of an organization's records, and `verify` naming the first record or digest that does not
 * match. Each test starts from a verifying log and changes one thing directly in the table.
 */
useDatabase();
let secrets: string;
beforeAll(() => {
  secrets = makeTempDir('digest-secrets');
  process.env.IDP_DATA_DIR = secrets;
  reloadConfig();
});
afterAll(() => removeTempDir(secrets));

const THREE_HOURS_AGO = hourOf(Date.now()) - 3 * HOUR_MILLIS;

/** An organization with `count` records in a past hour and `next` in the one after, both digested. */
const digestedLog = async (count: number, shards = 1, next = count, retentionDays = 90) => {
  const organization = await createTestOrganization({ audit: { retentionDays, shards } } as never);
  const orgId = organization.id;
  const records: AuditRecord[] = [];
  for (const [hour, inHour] of [
    [THREE_HOURS_AGO, count],
    [THREE_HOURS_AGO + HOUR_MILLIS, next],
  ] as const) {
    const items = [];
    for (let index = 0; index < inHour; index++) {
      const record: AuditRecord = {
        id: '',
        organizationId: orgId,
        time: hour + index * 1000,
        action: 'user.updated',
        actor: { type: 'client', id: 'digest-test' },
        // The second of each hour names a further target too, which a copy of it indexes.
        targets: [
          { type: 'user', id: `user-${index}` },
          ...(index === 1 ? [{ type: 'group', id: 'group-1' }] : []),
        ],
        outcome: 'success',
      };
      // Ids as the service makes them: a ULID of the record's time.
      record.id = ulid(record.time);
      records.push(record);
      items.push(...auditItems(record, { retentionDays, shards }));
    }
    await batchPut(items);
  }
  expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toMatchObject({ records: count, previous: null });
  expect((await writeHourDigest(orgId, THREE_HOURS_AGO + HOUR_MILLIS))?.records).toBe(next);
  // Positive control: the untouched log verifies.
  expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: count + next });
  return { orgId, records };
};

/** Records of the organization at these times, stored as the service stores them. */
const stored = async (orgId: string, times: number[], retentionDays = 90) => {
  const records = times.map(
    (time, index): AuditRecord => ({
      id: ulid(time),
      organizationId: orgId,
      time,
      action: 'user.updated',
      actor: { type: 'client', id: 'digest-test' },
      targets: [{ type: 'user', id: `user-${index}` }],
      outcome: 'success',
    }),
  );
  await batchPut(records.flatMap((record) => auditItems(record, { retentionDays, shards: 1 })));
  return records;
};

describe('audit digests', () => {
  it('verify names a record edited directly in the table', async () => {
    const { orgId, records } = await digestedLog(5);
    const edited = records[6] as AuditRecord;
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.auditRecord(orgId, edited.id),
        UpdateExpression: 'SET #record = :record',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':record': JSON.stringify({ ...edited, outcome: 'failure' }) },
      }),
    );
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: THREE_HOURS_AGO + HOUR_MILLIS,
      record: { kind: 'changed', id: edited.id },
    });
  });

  const { actor, outcome, target } = AUDIT_INDEXES;
  it.each([
    [
      'its actor index moved to another actor',
      'SET #pk = :other',
      { '#pk': actor.partitionKey },
      { ':other': 'AUDIT#x#actor#y#0' },
    ],
    [
      'an outcome index added to a success',
      'SET #pk = :failure, #sk = #id',
      { '#pk': outcome.partitionKey, '#sk': outcome.sortKey, '#id': 'recordId' },
      { ':failure': 'AUDIT#x#outcome#failure#0' },
    ],
    ['its first target index removed', 'REMOVE #pk', { '#pk': target.partitionKey }, undefined],
    [
      'its action attribute edited',
      'SET #action = :action',
      { '#action': 'action' },
      { ':action': 'user.created' },
    ],
  ])('verify names a record whose text hashes right but with %s', async (_change, update, names, values) => {
    const { orgId, records } = await digestedLog(3);
    const edited = records[4] as AuditRecord;
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.auditRecord(orgId, edited.id),
        UpdateExpression: update,
        ExpressionAttributeNames: names,
        ...(values ? { ExpressionAttributeValues: values } : {}),
      }),
    );
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: THREE_HOURS_AGO + HOUR_MILLIS,
      record: { kind: 'reindexed', id: edited.id },
    });
  });

  it("verify names a record whose further target's copy was removed or moved, hiding it from that target", async () => {
    for (const tamper of ['remove', 'move'] as const) {
      const { orgId, records } = await digestedLog(3);
      const named = records[1] as AuditRecord;
      const byGroup = async () =>
        (await queryAuditRecords(orgId, { targetId: 'group-1' }, { limit: 100 })).records.map(
          (record) => record.id,
        );
      expect(await byGroup()).toContain(named.id);
      const copy = keys.auditTargetCopy(orgId, named.id, 1);
      await db().send(
        tamper === 'remove'
          ? new DeleteCommand({ TableName: tableName(), Key: copy })
          : new UpdateCommand({
              TableName: tableName(),
              Key: copy,
              UpdateExpression: 'SET gsi4pk = :elsewhere',
              ExpressionAttributeValues: { ':elsewhere': `AUDIT#${orgId}#target#group-2#0` },
            }),
      );
      expect(await byGroup()).not.toContain(named.id);
      expect(await verifyDigests(orgId), tamper).toMatchObject({
        ok: false,
        hour: THREE_HOURS_AGO,
        record: { kind: 'reindexed', id: named.id },
      });
    }
  });

  it('lists the other records when one was edited into text that is not a record, and verify names it', async () => {
    const { orgId, records } = await digestedLog(3);
    const listedIds = async () =>
      (await queryAuditRecords(orgId, {}, { limit: 100 })).records.map((record) => record.id);
    // Positive control: every record is listed.
    const listed = await listedIds();
    expect(listed).toEqual(expect.arrayContaining(records.map((record) => record.id)));
    const edited = records[4] as AuditRecord;
    await overwriteStoredRecord(edited, '{"id": "not a record');
    expect(await listedIds()).toEqual(listed.filter((id) => id !== edited.id));
    expect(await verifyDigests(orgId)).toMatchObject({ ok: false, record: { id: edited.id } });
  });

  it('verify names a record deleted from the table, and one added behind the digest', async () => {
    const { orgId, records } = await digestedLog(5);
    const deleted = records[2] as AuditRecord;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.auditRecord(orgId, deleted.id) }));
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: THREE_HOURS_AGO,
      record: { kind: 'missing', id: deleted.id },
    });

    const other = await digestedLog(3);
    const forged: AuditRecord = { ...(other.records[0] as AuditRecord), id: ulid(THREE_HOURS_AGO + 1500) };
    for (const Item of auditItems(forged, { retentionDays: 90, shards: 1 }))
      await db().send(new PutCommand({ TableName: tableName(), Item }));
    expect(await verifyDigests(other.orgId)).toMatchObject({
      ok: false,
      record: { kind: 'unlisted', id: forged.id },
    });
  });

  it('verify refuses a digest removed from the chain, and one whose signature does not verify', async () => {
    const { orgId } = await digestedLog(2);
    await db().send(
      new DeleteCommand({ TableName: tableName(), Key: keys.auditDigestHead(orgId, THREE_HOURS_AGO) }),
    );
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/does not follow/),
    });

    const second = await digestedLog(2);
    const head = keys.auditDigestHead(second.orgId, THREE_HOURS_AGO);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: head }));
    const [header, payload] = String(Item?.jws).split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString());
    const altered = Buffer.from(JSON.stringify({ ...claims, records: claims.records + 1 })).toString(
      'base64url',
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: head,
        UpdateExpression: 'SET jws = :jws',
        ExpressionAttributeValues: { ':jws': `${header}.${altered}.${String(Item?.jws).split('.')[2]}` },
      }),
    );
    expect(await verifyDigests(second.orgId)).toMatchObject({
      ok: false,
      hour: THREE_HOURS_AGO,
      problem: 'the digest signature does not verify',
    });
  });

  it('keeps verifying digests whose signing key was rotated out of the key set', async () => {
    const { orgId } = await digestedLog(2);
    const now = Date.now();
    // The key that signed them retires, then is dropped once no token it signed can be valid.
    const signedWith = (await publicJwks()).keys.map((key) => key.kid);
    await rotateSigningKeys(0, now);
    await rotateSigningKeys(0, now + 10 * 60 * 1000);
    const published = (await publicJwks()).keys.map((key) => key.kid);
    expect(published.filter((kid) => signedWith.includes(kid))).toEqual([]);
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: 4 });
  });

  it('digests a sharded organization in id order, over several pages, once per hour', async () => {
    const count = DIGEST_PAGE_SIZE + 7;
    const { orgId, records } = await digestedLog(count, 3, 5);
    // A second run of the same hour keeps the digest it has.
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toBeUndefined();
    expect(await verifyDigests(orgId, THREE_HOURS_AGO + HOUR_MILLIS)).toEqual({
      ok: true,
      digests: 1,
      records: 5,
    });
    // An hour without records gets no digest.
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO - HOUR_MILLIS)).toBeUndefined();
    expect(records).toHaveLength(count + 5);
  });

  it('verify names a record put into an hour that recorded nothing, between two digests', async () => {
    const organization = await createTestOrganization();
    const orgId = organization.id;
    const [first, quiet, third] = [
      THREE_HOURS_AGO,
      THREE_HOURS_AGO + HOUR_MILLIS,
      THREE_HOURS_AGO + 2 * HOUR_MILLIS,
    ];
    await stored(orgId, [first + 10, third + 10]);
    for (const hour of [first, quiet, third]) await writeHourDigest(orgId, hour);
    // The positive control: three digests (the quiet hour's lists nothing), and the log verifies.
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 3, records: 2 });
    const [forged] = await stored(orgId, [quiet + 10]);
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: quiet,
      record: { kind: 'unlisted', id: forged?.id },
    });
  });

  it('verify names a record put into a quiet hour after its run, though before the next digest', async () => {
    const { id: orgId } = await createTestOrganization();
    const [first, quiet, third] = [0, 1, 2].map((hours) => THREE_HOURS_AGO + hours * HOUR_MILLIS) as [
      number,
      number,
      number,
    ];
    await stored(orgId, [first + 10]);
    expect(await writeHourDigest(orgId, first)).toMatchObject({ records: 1 });
    // The quiet hour's run writes a digest listing nothing, which expires as a record of its end would.
    expect(await writeHourDigest(orgId, quiet)).toMatchObject({
      from: quiet,
      records: 0,
      pages: [],
      expiresAt: Math.floor((quiet + HOUR_MILLIS) / 1000) + 90 * 86_400,
    });
    const [forged] = await stored(orgId, [quiet + 10]);
    await stored(orgId, [third + 10]);
    expect(await writeHourDigest(orgId, third)).toMatchObject({ from: third, records: 1 });
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: quiet,
      record: { kind: 'unlisted', id: forged?.id },
    });
  });

  it('writes no digest for an organization that never recorded anything', async () => {
    const { id: orgId } = await createTestOrganization();
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toBeUndefined();
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 0, records: 0 });
  });

  it('lists the records of an hour a run missed in the next digest', async () => {
    const organization = await createTestOrganization();
    const orgId = organization.id;
    const [first, missed, next] = [
      THREE_HOURS_AGO,
      THREE_HOURS_AGO + HOUR_MILLIS,
      THREE_HOURS_AGO + 2 * HOUR_MILLIS,
    ];
    await stored(orgId, [first + 10, missed + 10, missed + 20]);
    await writeHourDigest(orgId, first);
    // The run of the missed hour never came; the next one lists its records though its own hour has none.
    expect(await writeHourDigest(orgId, next)).toMatchObject({ hour: next, from: missed, records: 2 });
    // An hour before the latest digest is not digested again, nor is the hour under way (its
    // digest would claim records not written yet, and stop every digest until it ends).
    expect(await writeHourDigest(orgId, missed)).toBeUndefined();
    await stored(orgId, [Date.now() - 1]);
    expect(await writeHourDigest(orgId, hourOf(Date.now()))).toBeUndefined();
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: 3 });
  });

  it('keeps the pages of a run of the same hour that wrote first: a later run writes no head over them', async () => {
    const organization = await createTestOrganization();
    const orgId = organization.id;
    await stored(orgId, [THREE_HOURS_AGO + 10]);
    // Another run of the same hour reads one more record and writes its digest just before this
    // run's first page.
    const other = beforeCommand(
      (input) => String((input.Item as { sk?: string } | undefined)?.sk).startsWith('PAGE#'),
      async () => {
        await stored(orgId, [THREE_HOURS_AGO + 20]);
        expect((await writeHourDigest(orgId, THREE_HOURS_AGO))?.records).toBe(2);
      },
    );
    try {
      expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toBeUndefined();
    } finally {
      other.stop();
    }
    expect(other.ran).toBe(true);
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 1, records: 2 });
  });

  it('extends the chain once from each digest: of two runs of different hours at the same moment, one writes', async () => {
    const organization = await createTestOrganization();
    const orgId = organization.id;
    const [first, second, third] = [
      THREE_HOURS_AGO,
      THREE_HOURS_AGO + HOUR_MILLIS,
      THREE_HOURS_AGO + 2 * HOUR_MILLIS,
    ];
    await stored(orgId, [first + 10, second + 10, third + 10]);
    await writeHourDigest(orgId, first);
    // The run of the second hour commits just before the run of the third, which read the same
    // previous digest, sends its head.
    const meanwhile = beforeCommand(
      (input) =>
        JSON.stringify(input.TransactItems ?? '').includes(`HOUR#${String(third).padStart(15, '0')}`),
      async () => expect((await writeHourDigest(orgId, second))?.records).toBe(1),
    );
    try {
      expect(await writeHourDigest(orgId, third)).toBeUndefined();
    } finally {
      meanwhile.stop();
    }
    expect(meanwhile.ran).toBe(true);
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: 2 });
    // The third hour keeps the lost run's pages, so no head goes over them; the next hour's
    // digest (once that hour has ended) lists its record, and the organization's creation of this
    // hour, following the second.
    expect(await writeHourDigest(orgId, third)).toBeUndefined();
    const fourth = third + HOUR_MILLIS;
    expect(await writeHourDigest(orgId, fourth, fourth + HOUR_MILLIS)).toMatchObject({
      from: third,
      records: 2,
    });
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 3, records: 4 });
  });

  it('signs a record written through the store like any other', async () => {
    const organization = await createTestOrganization();
    const hour = hourOf(Date.now()) - HOUR_MILLIS;
    await writeAuditRecord(
      { organizationId: organization.id, action: 'user.created', targets: [{ type: 'user', id: 'u1' }] },
      hour + 10,
    );
    expect((await writeHourDigest(organization.id, hour))?.records).toBe(1);
    expect(await verifyDigests(organization.id)).toEqual({ ok: true, digests: 1, records: 1 });
  });
});

describe('token.issued records and digests', () => {
  it('lists a minute counted before an hour ended but written after its digest in a later hour', async () => {
    const organization = await createTestOrganization();
    const hour = THREE_HOURS_AGO;
    await withAuditScope({ actor: { type: 'client', id: 'writer' } }, () =>
      writeAuditRecord(
        { organizationId: organization.id, action: 'user.updated', targets: [] },
        hour + 10_000,
      ),
    );
    // A token at 59:30; the instance's next token request comes 6 minutes after the hour, once the
    // hour's digest was written.
    countIssuedToken({ id: 'counted-client', organizationId: organization.id }, hour + 59 * 60_000 + 30_000);
    expect((await writeHourDigest(organization.id, hour))?.records).toBe(1);
    const written = hour + HOUR_MILLIS + 6 * 60_000;
    await recordEndedMinutes(written);
    const [issued] = (await queryAuditRecords(organization.id, { action: 'token.issued' }, { limit: 10 }))
      .records;
    expect(issued).toMatchObject({ time: written, minute: hour + 59 * 60_000, count: 1 });
    // The next hour's digest lists it, and the log verifies as written.
    expect((await writeHourDigest(organization.id, hour + HOUR_MILLIS))?.records).toBe(1);
    expect(await verifyDigests(organization.id)).toEqual({ ok: true, digests: 2, records: 2 });
  });
});

describe('audit digests under retention', () => {
  it('verify passes once records and digests expired as the retention has them, never before', async () => {
    const { orgId, records } = await digestedLog(2, 1, 2, 1);
    const remove = (Key: Record<string, unknown>) =>
      db().send(new DeleteCommand({ TableName: tableName(), Key }));
    const expiryOf = async (Key: Record<string, unknown>) =>
      (await db().send(new GetCommand({ TableName: tableName(), Key }))).Item?.expiresAt;
    // A digest expires with the last of its records (a day after it, as the retention says).
    const lastOfHour = records[1] as AuditRecord;
    expect(await expiryOf(keys.auditDigestHead(orgId, THREE_HOURS_AGO))).toBe(
      await expiryOf(keys.auditRecord(orgId, lastOfHour.id)),
    );
    const later = Date.now() + 2 * 86_400_000;
    // The copy that indexes its further target goes too: before the record's expiry, tampering.
    await remove(keys.auditTargetCopy(orgId, lastOfHour.id, 1));
    // As TTL deletes the first hour's records: before their expiry, that is tampering.
    const first = records[0] as AuditRecord;
    await remove(keys.auditRecord(orgId, first.id));
    expect(await verifyDigests(orgId)).toMatchObject({ ok: false, problem: `record ${first.id} missing` });
    expect(await verifyDigests(orgId, 0, later)).toEqual({ ok: true, digests: 2, records: 4 });
    // The first hour's digest goes too, its page first (TTL deletes in no particular order): the
    // next head names when it was due, so only before then is that a removal.
    await remove(keys.auditDigestPage(orgId, THREE_HOURS_AGO, 0));
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      problem: 'page 1 of the digest was changed or removed',
    });
    expect(await verifyDigests(orgId, 0, later)).toEqual({ ok: true, digests: 2, records: 2 });
    // The chain then starts at the next, once that was due.
    await remove(keys.auditDigestHead(orgId, THREE_HOURS_AGO));
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      problem: 'the digest does not follow the one before it (a digest was changed or removed)',
    });
    expect(await verifyDigests(orgId, 0, later)).toEqual({ ok: true, digests: 1, records: 2 });
  });

  /** What TTL deletes of an hour's digest (DynamoDB Local runs no TTL): its head and its page. */
  /** When a retention of one day has expired what was written today (DynamoDB Local runs no TTL). */
  const TWO_DAYS_ON = Date.now() + 2 * 86_400_000;
  const expireDigest = (orgId: string, hour: number) =>
    Promise.all(
      [keys.auditDigestHead(orgId, hour), keys.auditDigestPage(orgId, hour, 0)].map((Key) =>
        db().send(new DeleteCommand({ TableName: tableName(), Key })),
      ),
    );

  it('goes on digesting after a quiet spell in which every digest and record expired', async () => {
    const organization = await createTestOrganization({ audit: { retentionDays: 1, shards: 1 } } as never);
    const orgId = organization.id;
    await stored(orgId, [THREE_HOURS_AGO + 10], 1);
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toMatchObject({ records: 1 });
    // Positive control: the next hour's records extend the chain.
    await stored(orgId, [THREE_HOURS_AGO + HOUR_MILLIS + 10], 1);
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO + HOUR_MILLIS)).toMatchObject({ records: 1 });
    // Then all of it expires (the chain's tip still names the last digest), and records come again.
    await expireDigest(orgId, THREE_HOURS_AGO);
    await expireDigest(orgId, THREE_HOURS_AGO + HOUR_MILLIS);
    for (const { id } of await queryAuditRecords(orgId, {}, { limit: 100 }).then((page) => page.records))
      await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.auditRecord(orgId, id) }));
    await stored(orgId, [THREE_HOURS_AGO + 2 * HOUR_MILLIS + 10], 1);
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO + 2 * HOUR_MILLIS, TWO_DAYS_ON)).toMatchObject({
      previous: null,
      records: 1,
    });
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 1, records: 1 });
  });

  it('goes on digesting from the newest digest left when a shortened retention expired a newer one first', async () => {
    const { orgId } = await digestedLog(1, 1, 1, 1);
    await expireDigest(orgId, THREE_HOURS_AGO + HOUR_MILLIS);
    await stored(orgId, [THREE_HOURS_AGO + 2 * HOUR_MILLIS + 10]);
    const head = await writeHourDigest(orgId, THREE_HOURS_AGO + 2 * HOUR_MILLIS, TWO_DAYS_ON);
    // The second hour's record, no longer in a digest, is listed again with the third's.
    expect(head).toMatchObject({ from: THREE_HOURS_AGO + HOUR_MILLIS, records: 2 });
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: 3 });
  });
});

describe('audit digests removed or edited into what the service never writes', () => {
  const setText = (orgId: string, id: string, text: string) =>
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.auditRecord(orgId, id),
        UpdateExpression: 'SET #record = :record',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':record': text },
      }),
    );
  const remove = (...itemKeys: Record<string, string>[]) =>
    Promise.all(itemKeys.map((Key) => db().send(new DeleteCommand({ TableName: tableName(), Key }))));

  it('goes on from a newest digest removed before it was due, naming it, so verify reports the gap', async () => {
    const { id: orgId } = await createTestOrganization();
    const [first, second] = [THREE_HOURS_AGO, THREE_HOURS_AGO + HOUR_MILLIS];
    await stored(orgId, [first + 10]);
    expect(await writeHourDigest(orgId, first)).toMatchObject({ records: 1 });
    const [victim] = await stored(orgId, [second + 10]);
    const removedHead = await writeHourDigest(orgId, second);
    expect(removedHead).toMatchObject({ records: 1 });
    // Positive control: an edit of the second hour's record is named.
    await setText(
      orgId,
      String(victim?.id),
      JSON.stringify({ ...victim, changes: { name: { from: 'a', to: 'b' } } }),
    );
    expect(await verifyDigests(orgId)).toMatchObject({ ok: false, record: { kind: 'changed' } });
    // Its digest removed (due in 90 days), the next one does not close the chain over the edit.
    await remove(keys.auditDigestHead(orgId, second), keys.auditDigestPage(orgId, second, 0));
    await stored(orgId, [second + HOUR_MILLIS + 10]);
    const next = await writeHourDigest(orgId, second + HOUR_MILLIS);
    expect(next).toMatchObject({ from: second + HOUR_MILLIS, previousExpiresAt: removedHead?.expiresAt });
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      hour: second + HOUR_MILLIS,
      problem: 'the digest does not follow the one before it (a digest was changed or removed)',
    });
  });

  it("fails the run, and verify, when the chain's tip is removed or names an hour not ended", async () => {
    const { id: orgId } = await createTestOrganization();
    const [first, second] = [THREE_HOURS_AGO, THREE_HOURS_AGO + HOUR_MILLIS];
    await stored(orgId, [first + 10, second + 10]);
    expect(await writeHourDigest(orgId, first)).toMatchObject({ records: 1 });
    // Positive control: as the service left it, the log verifies.
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 1, records: 1 });
    const tip = keys.auditDigestTip(orgId);
    const saved = (await db().send(new GetCommand({ TableName: tableName(), Key: tip }))).Item;
    await remove(tip);
    await expect(writeHourDigest(orgId, second)).rejects.toThrow("digests without the chain's tip");
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/tip is missing/),
    });
    const future = hourOf(Date.now()) + 24 * HOUR_MILLIS;
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...saved, hour: future } }));
    await expect(writeHourDigest(orgId, second)).rejects.toThrow('names an hour that has not ended');
    expect(await verifyDigests(orgId)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/does not name/),
    });
    // Put back, the chain goes on.
    await db().send(new PutCommand({ TableName: tableName(), Item: saved }));
    expect(await writeHourDigest(orgId, second)).toMatchObject({ records: 1 });
    expect(await verifyDigests(orgId)).toEqual({ ok: true, digests: 2, records: 2 });
  });

  it("names an older digest's removed page though a newer digest expired first (a shortened retention)", async () => {
    const { id: orgId } = await createTestOrganization();
    const [first, second, third] = [0, 1, 2].map((hours) => THREE_HOURS_AGO + hours * HOUR_MILLIS) as [
      number,
      number,
      number,
    ];
    await stored(orgId, [first + 10], 90);
    expect(await writeHourDigest(orgId, first)).toMatchObject({ records: 1 });
    const [short] = await stored(orgId, [second + 10], 1);
    expect(await writeHourDigest(orgId, second)).toMatchObject({ records: 1 });
    await stored(orgId, [third + 10], 1);
    expect(await writeHourDigest(orgId, third)).toMatchObject({ records: 1 });
    // Two days on, TTL took the second hour's record and digest (DynamoDB Local runs no TTL).
    const later = Date.now() + 2 * 86_400_000;
    await remove(
      keys.auditRecord(orgId, String(short?.id)),
      keys.auditDigestHead(orgId, second),
      keys.auditDigestPage(orgId, second, 0),
    );
    // Positive control: that verifies.
    expect(await verifyDigests(orgId, 0, later)).toEqual({ ok: true, digests: 2, records: 2 });
    // The first digest's page removed: it is due in 90 days, whatever the third says of the second.
    await remove(keys.auditDigestPage(orgId, first, 0));
    expect(await verifyDigests(orgId, 0, later)).toMatchObject({
      ok: false,
      hour: first,
      problem: 'page 1 of the digest was changed or removed',
    });
  });

  it('names a page edited into text that is not JSON, and a record whose text is JSON but no record', async () => {
    const { id: orgId } = await createTestOrganization();
    const [record] = await stored(orgId, [THREE_HOURS_AGO + 10]);
    const id = String(record?.id);
    // Put by hand before the digest: the text names the record and its organization, nothing else.
    await setText(orgId, id, JSON.stringify({ id, organizationId: orgId }));
    expect(await writeHourDigest(orgId, THREE_HOURS_AGO)).toMatchObject({ records: 1 });
    expect(await verifyDigests(orgId)).toMatchObject({ ok: false, record: { kind: 'reindexed', id } });
    const setEntries = (entries: string) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.auditDigestPage(orgId, THREE_HOURS_AGO, 0),
          UpdateExpression: 'SET entries = :entries',
          ExpressionAttributeValues: { ':entries': entries },
        }),
      );
    // Positive control: a page edited into other JSON is named.
    for (const entries of ['[]', 'not json', '{}']) {
      await setEntries(entries);
      expect(await verifyDigests(orgId)).toMatchObject({
        ok: false,
        problem: 'page 1 of the digest was changed or removed',
      });
    }
  });
});
