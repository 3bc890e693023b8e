import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { actionFilter, namespaceOf } from '../audit/actions.js';
import {
  type AuditEvent,
  type AuditOutcome,
  type AuditRecord,
  auditRecord,
  storedRecord,
} from '../audit/record.js';
import { recordIdAt } from '../audit/record-id.js';
import { auditScope } from '../audit/scope.js';
import { type AuditSettings, DEFAULT_AUDIT_SETTINGS, expiryOf } from '../audit/settings.js';
import { mergeShardPages } from '../audit/shard-pages.js';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { logger } from '../http/logger.js';
import { db, tableName } from './dynamo.js';
import { OrganizationEntity } from './entities.js';
import { AUDIT_INDEXES, type AuditDimension, keys } from './keys.js';
import { put, type Write } from './writes.js';

/**
 * A page also ends before its records' text passes 4 MiB: a record can be hundreds of KB (a
 * `client.updated` swapping long redirect URIs is about 160 KB), each shard's Query reads up to
 * 1 MB, and a Lambda answer carries at most 6 MB, so `limit` records from many shards would be a
 * 5xx. A record counts as its text with what escaping adds inside Lambda's JSON answer
 * (`answeredBytes` below); the rest is room for the headers. One record alone (at most DynamoDB's
 * 400 KB item) is answered whatever its size. Kept here, not beside the query's schemas: every
 * function writes records through this module, and only the audit function needs those schemas.
 */
export const MAX_AUDIT_PAGE_BYTES = 4 * 1024 * 1024;

const AUDIT = OrganizationEntity.projection('audit');
/** Settings change rarely and only ever widen what a query reads (shards only grow): a minute is fine. */
const SETTINGS_MAX_AGE_MILLIS = 60_000;
const settingsCache = new ExpiringCache<string, AuditSettings | undefined>();

/** The stored settings; undefined while the organization does not exist yet (its creation's record). */
const readSettings = async (orgId: string, consistent: boolean) => {
  const organization = await OrganizationEntity.getProjected({ id: orgId }, AUDIT, { consistent });
  return organization && (organization.audit ?? DEFAULT_AUDIT_SETTINGS);
};

/**
 * An organization's audit settings. Writers take them from a cache (a minute old at most: a
 * record written to fewer shards than just configured is still found). Readers ask `fresh`: a
 * query must read every shard a writer may already use, so it reads the settings consistently.
 */
export const auditSettings = (
  orgId: string,
  now = Date.now(),
  options: { fresh?: boolean } = {},
): Promise<AuditSettings> =>
  options.fresh
    ? readSettings(orgId, true).then((settings) => settings ?? DEFAULT_AUDIT_SETTINGS)
    : settingsCache
        .get(orgId, SETTINGS_MAX_AGE_MILLIS, () => readSettings(orgId, false), now)
        .then((settings) => {
          // An organization being created is not remembered with the defaults it may not keep.
          if (!settings) settingsCache.forget(orgId);
          return settings ?? DEFAULT_AUDIT_SETTINGS;
        });

const indexAttributes = (
  orgId: string,
  dimension: AuditDimension,
  value: string,
  shard: number,
  id: string,
) => {
  const { partitionKey, sortKey } = AUDIT_INDEXES[dimension];
  return { [partitionKey]: keys.auditIndexKey(orgId, dimension, value, shard), [sortKey]: id };
};

/**
 * The items that store `record`: the record, indexed by its timeline, actor, first target, action,
 * namespace and (unless a success) outcome; and one copy per further target, indexed by that
 * target only. The record is kept as its JSON text, exactly what a digest hashes and the stream
 * forwards; the attributes beside it are what filters read.
 */
export const auditItems = (record: AuditRecord, settings: AuditSettings): Record<string, unknown>[] =>
  auditItemsInShard(record, settings, Math.floor(Math.random() * settings.shards));

/** {@link auditItems} in a given shard: what `audit verify` expects of a record it found there. */
export const auditItemsInShard = (
  record: AuditRecord,
  settings: AuditSettings,
  shard: number,
): Record<string, unknown>[] => {
  const { organizationId: orgId, id } = record;
  const stored = {
    recordId: id,
    action: record.action,
    outcome: record.outcome,
    actorId: record.actor.id,
    targetIds: record.targets.map((target) => target.id),
    record: JSON.stringify(record),
    expiresAt: expiryOf(record.time, settings.retentionDays),
  };
  const [first, ...others] = record.targets;
  const base = {
    ...keys.auditRecord(orgId, id),
    ...stored,
    ...indexAttributes(orgId, 'timeline', '', shard, id),
    ...indexAttributes(orgId, 'actor', record.actor.id, shard, id),
    ...(first ? indexAttributes(orgId, 'target', first.id, shard, id) : {}),
    ...indexAttributes(orgId, 'action', record.action, shard, id),
    ...indexAttributes(orgId, 'namespace', namespaceOf(record.action), shard, id),
    ...(record.outcome === 'success' ? {} : indexAttributes(orgId, 'outcome', record.outcome, shard, id)),
  };
  // Each target id indexed once: two copies in one partition could fill a one-record Query
  // (Limit 2 with the bound) and a page would continue below the same id forever.
  const copies = [...new Set(others.map((target) => target.id))]
    .filter((targetId) => targetId !== first?.id)
    .map((targetId, index) => ({
      ...keys.auditTargetCopy(orgId, id, index + 1),
      ...stored,
      ...indexAttributes(orgId, 'target', targetId, shard, id),
    }));
  return [base, ...copies];
};

/** The record of `event` by the current scope's actor, and the items that store it. */
export const auditedItems = async (event: AuditEvent, now = Date.now()) => {
  const record = auditRecord(event, auditScope(), now);
  return { record, items: auditItems(record, await auditSettings(event.organizationId, now)) };
};

/**
 * Writes a record on its own: refusals and sign-in outcomes, which change nothing the record
 * could ride with. Best effort: a failure is logged by the caller, never turned into the answer.
 */
export const writeAuditRecord = async (event: AuditEvent, now = Date.now()): Promise<AuditRecord> => {
  const { record, items } = await auditedItems(event, now);
  // PutItem, not BatchWriteItem: IAM lets functions append audit items with PutItem only.
  await Promise.all(items.map((Item) => db().send(new PutCommand({ TableName: tableName(), Item }))));
  return record;
};

export interface AuditQuery {
  /** Epoch milliseconds, inclusive. */
  since?: number;
  /** Epoch milliseconds, exclusive. */
  until?: number;
  /** An exact action, or a prefix ending in `.`. */
  action?: string;
  actorId?: string;
  targetId?: string;
  outcome?: AuditOutcome;
}

const LOWEST_ID = '0';
const HIGHEST_ID = '~';

/**
 * The index a query reads, and what it still filters: the most selective filter keys the index
 * (a target, an actor, an exact action, a failure or denial, a namespace), the others filter.
 */
const plan = (query: AuditQuery) => {
  const action = query.action === undefined ? undefined : actionFilter(query.action);
  const filters: { expression: string; values: Record<string, unknown> }[] = [];
  const filterOn = (expression: string, values: Record<string, unknown>) =>
    filters.push({ expression, values });
  let dimension: AuditDimension = 'timeline';
  let value = '';
  if (query.targetId !== undefined) [dimension, value] = ['target', query.targetId];
  else if (query.actorId !== undefined) [dimension, value] = ['actor', query.actorId];
  else if (action && 'exact' in action) [dimension, value] = ['action', action.exact];
  else if (query.outcome !== undefined && query.outcome !== 'success')
    [dimension, value] = ['outcome', query.outcome];
  else if (action && 'prefix' in action) [dimension, value] = ['namespace', namespaceOf(action.prefix)];

  if (query.actorId !== undefined && dimension !== 'actor')
    filterOn('actorId = :actorId', { ':actorId': query.actorId });
  if (action && 'exact' in action && dimension !== 'action')
    filterOn('#action = :action', { ':action': action.exact });
  // Only the namespace index read for this very prefix needs no filter (a target or actor id may
  // look like a namespace: `user.`).
  if (action && 'prefix' in action && !(dimension === 'namespace' && action.prefix === value))
    filterOn('begins_with(#action, :prefix)', { ':prefix': action.prefix });
  if (query.outcome !== undefined && dimension !== 'outcome')
    filterOn('outcome = :outcome', { ':outcome': query.outcome });
  return { dimension, value, filters };
};

export interface AuditPage {
  records: AuditRecord[];
  /** Continue below this id (exclusive) for the next page; absent on the last page. */
  before?: string;
}

/**
 * What a record adds to Lambda's answer: its stored text (the JSON the listing answers for it; the
 * response schema only ever drops fields), a comma, and a backslash per quote or backslash, which
 * the body gains as a string inside the invocation's JSON answer, where the 6 MB limit applies.
 */
const answeredBytes = (text: string): number => {
  let escaped = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34 || code === 92) escaped++;
  }
  return Buffer.byteLength(text) + 1 + escaped;
};

/**
 * One page of an organization's records, newest first: one Query per shard, side by side, merged.
 * `before` continues a page (exclusive). A page is complete for every id at or above the lowest
 * id all shards have examined; with filters beside the index a page can be short, never wrong.
 * A page also ends before its records pass {@link MAX_AUDIT_PAGE_BYTES}, and the next continues
 * right below its last record: still one Query per shard per page, never a read to fill it up.
 */
export const queryAuditRecords = async (
  orgId: string,
  query: AuditQuery,
  page: { limit: number; before?: string },
): Promise<AuditPage> => {
  const { dimension, value, filters } = plan(query);
  const { index, partitionKey, sortKey } = AUDIT_INDEXES[dimension];
  const low = query.since === undefined ? LOWEST_ID : recordIdAt(query.since, 'first');
  const untilId = query.until === undefined ? HIGHEST_ID : recordIdAt(query.until - 1, 'last');
  const high = page.before !== undefined && page.before < untilId ? page.before : untilId;
  if (high < low) return { records: [] };
  const usesAction = filters.some((filter) => filter.expression.includes('#action'));
  const queryShard = (shard: number) =>
    db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
        ...(filters.length > 0
          ? { FilterExpression: filters.map((filter) => filter.expression).join(' AND ') }
          : {}),
        ExpressionAttributeNames: {
          '#pk': partitionKey,
          '#sk': sortKey,
          '#record': 'record',
          ...(usesAction ? { '#action': 'action' } : {}),
        },
        ExpressionAttributeValues: {
          ':pk': keys.auditIndexKey(orgId, dimension, value, shard),
          ':low': low,
          ':high': high,
          ...Object.assign({}, ...filters.map((filter) => filter.values)),
        },
        ProjectionExpression: 'recordId, #record',
        ScanIndexForward: false,
        // One more than a page: the id the page continues below is included by BETWEEN.
        Limit: page.limit + 1,
      }),
    );
  // Every organization has shard 0: it is read beside the settings that tell how many more there
  // are, so the usual organization's page (one shard) costs one round trip.
  const [{ shards }, first] = await Promise.all([
    auditSettings(orgId, Date.now(), { fresh: true }),
    queryShard(0),
  ]);
  const results = [
    first,
    ...(await Promise.all(Array.from({ length: shards - 1 }, (_, index) => queryShard(index + 1)))),
  ];
  const merged = mergeShardPages(
    results.map((result) => ({
      ids: (result.Items ?? []).map((item) => ({ id: String(item.recordId), text: String(item.record) })),
      examinedTo: result.LastEvaluatedKey?.[sortKey] as string | undefined,
    })),
    page.limit,
    page.before,
    { budget: MAX_AUDIT_PAGE_BYTES, sizeOf: (entry) => answeredBytes(entry.text) },
  );
  const records = merged.entries.flatMap((entry) => {
    const record = storedRecord(entry, orgId);
    if (!record) logger.error('audit record unreadable: left out of the listing', { recordId: entry.id });
    return record ? [record] : [];
  });
  return {
    records,
    ...(merged.before ? { before: merged.before } : {}),
  };
};

/** The writes that store the record of `event`, to ride in the transaction of the change it describes. */
export const auditWrites = async (event: AuditEvent, now = Date.now()): Promise<Write[]> =>
  (await auditedItems(event, now)).items.map((item) => put(item));
