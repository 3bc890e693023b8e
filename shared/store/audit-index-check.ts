import { isDeepStrictEqual } from 'node:util';
import type { AuditRecord } from '../audit/record.js';
import { DEFAULT_AUDIT_SETTINGS } from '../audit/settings.js';
import { auditItemsInShard } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { AUDIT_INDEXES, type ItemKey } from './keys.js';

/**
 * What `audit verify` checks beside the digests' hashes, which cover a record's text only: that
 * each record is still indexed as it was written. An edited index key or filter attribute, or a
 * removed copy of a further target, would hide the record from the queries that filter on it
 * (`GET /idp/auditEvents?actorId=…`) while its text still hashed right.
 */

/** The attributes of an audit item that queries find it by (its text is the digests' to check). */
const FOUND_BY = [
  'pk',
  'sk',
  'recordId',
  'action',
  'outcome',
  'actorId',
  'targetIds',
  ...Object.values(AUDIT_INDEXES).flatMap((index) => [index.partitionKey, index.sortKey]),
];

const foundBy = (item: Record<string, unknown>) =>
  Object.fromEntries(FOUND_BY.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]));

const keyOf = (item: Record<string, unknown>): ItemKey => ({ pk: String(item.pk), sk: String(item.sk) });

/** The shard a record was written to, from its timeline key (`…#timeline#<empty value>#<shard>`). */
const shardOf = (item: Record<string, unknown>) =>
  Number(String(item[AUDIT_INDEXES.timeline.partitionKey]).split('#').at(-1));

const parsed = (text: unknown): AuditRecord | undefined => {
  try {
    return JSON.parse(String(text)) as AuditRecord;
  } catch {
    return undefined;
  }
};

/**
 * The id of the first of `items` (records as the timeline found them, in id order) not indexed as
 * written, its further targets' copies included (one BatchGetItem for all of them). A copy gone
 * once its record expired (`nowSeconds`) is TTL's doing: TTL deletes the items in no order.
 * Retention only sets `expiresAt`, which is no filter, so any settings give the expected items.
 */
export const firstReindexed = async (
  items: readonly Record<string, unknown>[],
  nowSeconds: number,
): Promise<string | undefined> => {
  const expected = items.map((item) => {
    const record = parsed(item.record);
    try {
      return record ? auditItemsInShard(record, DEFAULT_AUDIT_SETTINGS, shardOf(item)) : [];
    } catch {
      return []; // JSON, but no record: what the service never writes
    }
  });
  const copies = await batchGetByKey(expected.flatMap((written) => written.slice(1).map(keyOf)));
  for (const [index, item] of items.entries()) {
    // The hashes are compared first: a text that is no record and still hashes as listed was put
    // so before its digest, by hand or by a function's compromised code.
    const [base, ...written] = expected[index] ?? [];
    if (!base) return String(item.recordId);
    if (!isDeepStrictEqual(foundBy(item), foundBy(base))) return String(item.recordId);
    const expired = typeof item.expiresAt === 'number' && item.expiresAt <= nowSeconds;
    for (const copy of written) {
      const found = copies.get(keyOf(copy));
      if (found ? !isDeepStrictEqual(foundBy(found), foundBy(copy)) : !expired) return String(item.recordId);
    }
  }
  return undefined;
};
