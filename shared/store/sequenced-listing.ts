import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { NotFound } from '../domain/errors.js';
import { type BucketCount, bucketOf, locatePage } from '../domain/paging.js';
import { db, tableName } from './dynamo.js';
import { CounterEntity, OrganizationEntity } from './entities.js';
import { keys, TABLE_SCHEMA } from './keys.js';
import { addTo, update, type Write, writeOne } from './writes.js';

/**
 * Creation-ordered listings inside an organization (LISTINGS in keys.ts), paged by offset without
 * reading what comes before the page (see `shared/domain/paging.ts`). Whoever adds or removes an
 * entry also writes `bucketCountDelta` in the same transaction.
 */
type SequenceCounter = 'userSequence' | 'groupSequence' | 'roleSequence' | 'clientSequence';

/**
 * Takes the next number of a per-organization counter (1, 2, ...) and answers it with the
 * organization as it is now, so a caller needing the organization too reads it in the same write.
 */
export const nextSequence = async (orgId: string, counter: SequenceCounter) => {
  const item = await writeOne(
    update(
      keys.organization(orgId),
      {
        update: 'ADD #counter :one',
        condition: 'attribute_exists(pk)',
        names: { '#counter': counter },
        values: { ':one': 1 },
      },
      () => new NotFound('Organization', orgId),
    ),
    { returnNew: true },
  );
  const organization = OrganizationEntity.decode(item ?? {});
  return { sequence: Number(organization[counter]), organization };
};

export const bucketCountDelta = (orgId: string, listing: string, sequence: number, delta: number): Write =>
  addTo(keys.listingBucket(orgId, listing, bucketOf(sequence)), 'count', delta);

/**
 * Where a listing's entries are: by default the organization's partition of `lsi1` (strongly
 * consistent); items kept in their own partitions (API clients) list through `gsi1` instead,
 * which DynamoDB keeps eventually consistent.
 */
export interface ListingIndex {
  name: string;
  partitionAttribute: string;
  partitionValue: string;
  sortAttribute: string;
  consistent: boolean;
}

const organizationListing = (orgId: string): ListingIndex => ({
  name: TABLE_SCHEMA.localIndexes[0].name,
  partitionAttribute: TABLE_SCHEMA.partitionKey,
  partitionValue: keys.organizationPartition(orgId),
  sortAttribute: keys.listingSortKey,
  consistent: true,
});

export interface Page<T> {
  items: T[];
  hasMore: boolean;
  /** With more: the sequence number of the page's last entry, where the next page starts after. */
  nextAfter?: number;
  /** Read capacity the page cost, for measurements. */
  consumedCapacity: number;
}

/** How the entries of a listing are read: the attributes to fetch and their decoder. */
export interface ListingRead<T> {
  readonly expression?: string;
  readonly names?: Record<string, string>;
  decode(item: Record<string, unknown>): T;
}

const bucketCounts = async (orgId: string, listing: string) => {
  const prefix = keys.listingBucketPrefix(listing);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.organizationPartition(orgId), ':prefix': prefix },
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    }),
  );
  const buckets: BucketCount[] = (result.Items ?? []).map((item) => ({
    bucket: Number(String(item.sk).slice(prefix.length)),
    count: CounterEntity.decode(item).count,
  }));
  return { buckets, consumedCapacity: result.ConsumedCapacity?.CapacityUnits ?? 0 };
};

/**
 * One page of a listing. Page 0 is one Query; a later page first reads the bucket counts (small
 * items, one Query) to find where it starts, then reads from that bucket on. Strongly consistent
 * inside an organization's partition. `after` (a page's `nextAfter`) starts the page after that
 * entry instead, in one Query: an entry removed before it no longer moves the page.
 */
export const readPage = async <T>(
  orgId: string,
  listing: string,
  page: number,
  pageSize: number,
  read: ListingRead<T>,
  { index = organizationListing(orgId), after }: { index?: ListingIndex; after?: number | undefined } = {},
): Promise<Page<T>> => {
  if (after !== undefined)
    return readFrom({ fromSequence: after + 1, skip: 0 }, listing, pageSize, read, index, 0);
  if (page === 0) return readFrom({ fromSequence: 0, skip: 0 }, listing, pageSize, read, index, 0);
  const counts = await bucketCounts(orgId, listing);
  const located = locatePage(counts.buckets, page * pageSize);
  if (!located) return { items: [], hasMore: false, consumedCapacity: counts.consumedCapacity };
  return readFrom(located, listing, pageSize, read, index, counts.consumedCapacity);
};

/** How many entries a listing has (its bucket counts: one Query of small items). */
export const listingSize = async (orgId: string, listing: string) => {
  const counts = await bucketCounts(orgId, listing);
  return {
    size: counts.buckets.reduce((sum, { count }) => sum + Math.max(0, count), 0),
    buckets: counts.buckets,
  };
};

/** `count` entries from the `offset`-th on (0-based), given the listing's bucket counts. */
export const readAt = async <T>(
  orgId: string,
  listing: string,
  offset: number,
  count: number,
  buckets: readonly BucketCount[],
  read: ListingRead<T>,
): Promise<T[]> => {
  const located = locatePage(buckets, offset);
  if (!located || count <= 0) return [];
  return (await readFrom(located, listing, count, read, organizationListing(orgId), 0)).items;
};

const readFrom = async <T>(
  start: { fromSequence: number; skip: number },
  listing: string,
  pageSize: number,
  read: ListingRead<T>,
  index: ListingIndex,
  consumedBefore: number,
): Promise<Page<T>> => {
  let consumedCapacity = consumedBefore;
  const wanted = start.skip + pageSize + 1; // one more than the page tells whether another follows
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
        ExpressionAttributeNames: {
          '#pk': index.partitionAttribute,
          '#sk': index.sortAttribute,
          ...read.names,
        },
        // The sort value too: it holds the entry's sequence number, where the next page starts.
        ...(read.expression ? { ProjectionExpression: `${read.expression}, #sk` } : {}),
        ExpressionAttributeValues: {
          ':pk': index.partitionValue,
          ':from': keys.listingEntry(listing, start.fromSequence),
          ':to': keys.listingEnd(listing),
        },
        Limit: wanted - items.length,
        ConsistentRead: index.consistent,
        ExclusiveStartKey: startKey,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    consumedCapacity += result.ConsumedCapacity?.CapacityUnits ?? 0;
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey && items.length < wanted);

  const page = items.slice(start.skip, start.skip + pageSize);
  const hasMore = items.length > start.skip + pageSize;
  const last = page.at(-1)?.[index.sortAttribute];
  return {
    items: page.map((item) => read.decode(item)),
    hasMore,
    ...(hasMore && typeof last === 'string' ? { nextAfter: sequenceOf(listing, last) } : {}),
    consumedCapacity,
  };
};

/** The sequence number in an entry's sort value (`keys.listingEntry`). */
const sequenceOf = (listing: string, sortValue: string) => Number(sortValue.slice(listing.length + 1));
