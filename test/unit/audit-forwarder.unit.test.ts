import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/audit-forwarder.js';
import type { AuditRecord } from '../../shared/audit/record.js';

/** The forwarder (functions/audit-forwarder.ts) with DynamoDB stream events as Lambda hands them over. */
const eventBridge = mockClient(EventBridgeClient);
afterAll(() => eventBridge.restore());

const record = (index: number): AuditRecord => ({
  id: `01J${String(index).padStart(23, '0')}`,
  organizationId: 'org-1',
  time: 1_790_000_000_000 + index,
  action: index % 2 ? 'user.created' : 'signin.failed',
  actor: { type: 'user', id: `user-${index}`, ip: '192.0.2.1' },
  targets: [{ type: 'user', id: `user-${index}` }],
  outcome: index % 2 ? 'success' : 'failure',
});

/** One stream record as Lambda delivers it: DynamoDB JSON, a sequence number. */
const streamed = (item: Record<string, unknown>, sequence: number, eventName = 'INSERT') => ({
  eventID: String(sequence),
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: marshall({ pk: item.pk, sk: item.sk }),
    NewImage: marshall(item, { removeUndefinedValues: true }),
    SequenceNumber: String(1000 + sequence),
    StreamViewType: 'NEW_IMAGE',
  },
});

const auditItem = (index: number) => ({
  pk: `AUDIT#org-1#${record(index).id}`,
  sk: 'RECORD',
  record: JSON.stringify(record(index)),
  action: record(index).action,
});

const event = (records: ReturnType<typeof streamed>[]) =>
  ({ Records: records }) as unknown as DynamoDBStreamEvent;

beforeEach(() => {
  eventBridge.reset();
  process.env.IDP_EVENT_BUS_NAME = 'idp-events';
});
afterEach(() => {
  delete process.env.IDP_EVENT_BUS_NAME;
});

describe('the audit forwarder', () => {
  it('puts each new record on the bus: source idp, detail-type its action, detail the record, ten per call', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const answer = await handler(
      event(Array.from({ length: 23 }, (_, index) => streamed(auditItem(index), index))),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    const calls = eventBridge.commandCalls(PutEventsCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    const [first] = calls[0]?.args[0].input.Entries ?? [];
    expect(first).toMatchObject({ EventBusName: 'idp-events', Source: 'idp', DetailType: 'signin.failed' });
    expect(JSON.parse(first?.Detail ?? '')).toEqual(record(0));
    expect(first?.Time).toEqual(new Date(record(0).time));
  });

  it('forwards nothing but inserted records: not their target copies, not other items, not updates', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    await handler(
      event([
        streamed({ ...auditItem(1), sk: 'TARGET#1' }, 1),
        streamed({ pk: 'ORG#org-1', sk: 'USER#u', record: JSON.stringify(record(2)) }, 2),
        streamed(auditItem(3), 3, 'MODIFY'),
        streamed(auditItem(4), 4),
      ]),
    );
    const entries = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.map((entry) => JSON.parse(entry.Detail ?? '').id)).toEqual([record(4).id]);
  });

  it('reads records beside items whose values a generic unmarshall refuses', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const oddItem = streamed({ pk: 'SYSTEM#MANAGED_ROLES', sk: 'MANAGED_ROLE#administrator' }, 1);
    // A value without a type, as the local stream reported an empty map once.
    Object.assign(oddItem.dynamodb.NewImage, { pluginPermissions: {} });
    expect(() => unmarshall(oddItem.dynamodb.NewImage)).toThrow();
    await handler(event([oddItem, streamed(auditItem(2), 2)]));
    const entries = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.map((entry) => JSON.parse(entry.Detail ?? '').id)).toEqual([record(2).id]);
  });

  it('skips a record item whose text is no record (written by hand) and forwards the ones after it', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    const handWritten = [
      streamed({ ...auditItem(3), record: 'not json {' }, 3),
      streamed({ ...auditItem(4), record: '"a string"' }, 4),
      streamed({ ...auditItem(5), record: undefined }, 5),
      // JSON objects, but not the record the key names: empty (no action, no time: an entry
      // EventBridge refuses, which would hold up the batch), another record's id, and another
      // organization's record under this one's key.
      streamed({ ...auditItem(7), record: '{}' }, 7),
      streamed({ ...auditItem(8), record: JSON.stringify(record(9)) }, 8),
      streamed({ ...auditItem(10), record: JSON.stringify({ ...record(10), organizationId: 'org-2' }) }, 10),
      streamed({ ...auditItem(11), record: JSON.stringify({ ...record(11), action: '' }) }, 11),
    ];
    const answer = await handler(event([...handWritten, streamed(auditItem(6), 6)]));
    expect(answer).toEqual({ batchItemFailures: [] });
    const entries = eventBridge
      .commandCalls(PutEventsCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.map((entry) => JSON.parse(entry.Detail ?? '').id)).toEqual([record(6).id]);
  });

  it('reports the first undelivered record so Lambda retries from it, and stops there', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({ FailedEntryCount: 0, Entries: [] })
      .resolvesOnce({
        FailedEntryCount: 2,
        Entries: [
          { EventId: 'a' },
          { EventId: 'b' },
          { ErrorCode: 'ThrottlingException' },
          { ErrorCode: 'x' },
        ],
      });
    const answer = await handler(
      event(Array.from({ length: 25 }, (_, index) => streamed(auditItem(index), index))),
    );
    // Entries 10..19 went in the second call; its third (record 12) failed first.
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '1012' }] });
    expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(2);
  });

  it('reports the chunk from its first record when the call itself fails', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('network'));
    const answer = await handler(event([streamed(auditItem(7), 7), streamed(auditItem(8), 8)]));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '1007' }] });
  });

  it('reports the chunk from its first record when a failure count comes without the entry that failed', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ EventId: 'a' }, {}] });
    const answer = await handler(event([streamed(auditItem(7), 7), streamed(auditItem(8), 8)]));
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '1007' }] });
  });

  it('puts at most 256 KB per call, and skips a record too large for any event so it holds up none after it', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
    /** A record of `kilobytes` KB, by a long change (a role of many permissions). */
    const large = (index: number, kilobytes: number) => {
      const item = auditItem(index);
      const text = JSON.stringify({
        ...record(index),
        changes: { permissions: { from: null, to: 'p'.repeat(kilobytes * 1024) } },
      });
      return streamed({ ...item, record: text }, index);
    };
    const answer = await handler(
      event([
        large(1, 60),
        large(2, 60),
        large(3, 60),
        large(4, 60),
        large(5, 300),
        large(6, 60),
        streamed(auditItem(7), 7),
      ]),
    );
    expect(answer).toEqual({ batchItemFailures: [] });
    const calls = eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);
    const bytes = (entries: (typeof calls)[number]) =>
      entries.reduce(
        (sum, entry) =>
          sum +
          14 +
          Buffer.byteLength(entry.Source ?? '') +
          Buffer.byteLength(entry.DetailType ?? '') +
          Buffer.byteLength(entry.Detail ?? ''),
        0,
      );
    for (const entries of calls) expect(bytes(entries)).toBeLessThanOrEqual(256 * 1024);
    // Four of 60 KB fit a call; the 300 KB one fits no event; the rest follow in order.
    expect(calls.map((entries) => entries.map((entry) => JSON.parse(entry.Detail ?? '').id))).toEqual([
      [1, 2, 3, 4].map((index) => record(index).id),
      [6, 7].map((index) => record(index).id),
    ]);
  });
});
