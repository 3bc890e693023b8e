import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type BucketCount, bucketOf, locatePage } from '../domain/paging.js';
import { notFound } from '../http/errors.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { keys, TABLE_SCHEMA } from './keys.js';

/**
 * Creation-ordered listings inside an organization's partition, paged by offset without reading
 * what comes before the page (see `shared/domain/paging.ts`). An entry is an item whose `lsi1sk`
 * is `keys.listingEntry(listing, sequence)`; whoever adds or removes one also applies
 * `bucketCountDelta` in the same transaction.
 */
export const LISTING_SORT_KEY = TABLE_SCHEMA.localIndexes[0].sortKey;

/** Takes the next number of a per-organization counter on the organization item (1, 2, ...). */
export const nextSequence = async (
  orgId: string,
  counter: 'groupSequence' | 'roleSequence' | 'clientSequence',
): Promise<number> => {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(orgId),
        UpdateExpression: 'ADD #counter :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#counter': counter },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.[counter]);
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound('Organization');
    throw error;
  }
};

export const bucketCountDelta = (orgId: string, listing: string, sequence: number, delta: number) => ({
  Update: {
    TableName: tableName(),
    Key: keys.listingBucket(orgId, listing, bucketOf(sequence)),
    UpdateExpression: 'ADD #count :delta',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':delta': delta },
  },
});

export interface Page {
  items: Record<string, unknown>[];
  hasMore: boolean;
  /** Read capacity the page cost, for measurements. */
  consumedCapacity: number;
}

/**
 * One page of a listing. Page 0 is one Query; a later page first reads the bucket counts (small
 * items, one Query) to find where it starts, then reads from that bucket on. Strongly consistent.
 */
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
  sortAttribute: LISTING_SORT_KEY,
  consistent: true,
});

export const readPage = async (
  orgId: string,
  listing: string,
  page: number,
  pageSize: number,
  projection: readonly string[] = [],
  index: ListingIndex = organizationListing(orgId),
): Promise<Page> => {
  let consumedCapacity = 0;
  let start = { fromSequence: 0, skip: 0 };
  if (page > 0) {
    const bucketQuery = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.organizationPartition(orgId),
          ':prefix': keys.listingBucketPrefix(listing),
        },
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    consumedCapacity += bucketQuery.ConsumedCapacity?.CapacityUnits ?? 0;
    const buckets: BucketCount[] = (bucketQuery.Items ?? []).map((item) => ({
      bucket: Number(String(item.sk).slice(keys.listingBucketPrefix(listing).length)),
      count: Number(item.count),
    }));
    const located = locatePage(buckets, page * pageSize);
    if (!located) return { items: [], hasMore: false, consumedCapacity };
    start = located;
  }

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
          ...Object.fromEntries(projection.map((attribute, index) => [`#p${index}`, attribute])),
        },
        ...(projection.length > 0
          ? { ProjectionExpression: projection.map((_attribute, index) => `#p${index}`).join(', ') }
          : {}),
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

  return {
    items: items.slice(start.skip, start.skip + pageSize),
    hasMore: items.length > start.skip + pageSize,
    consumedCapacity,
  };
};
