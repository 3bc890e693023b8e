import { BatchGetCommand, type BatchGetCommandOutput, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { countMetric } from '../observability/metrics.js';
import { db, tableName } from './dynamo.js';
import type { ItemKey } from './keys.js';

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, index * size + size),
  );

const backOff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));

/**
 * BatchGetItem in chunks of 100, retrying unprocessed keys; chunks run in parallel. Strongly
 * consistent: these reads decide what a token grants and whether a write may proceed, so a
 * change made a moment earlier must be seen.
 */
export const batchGet = async (
  itemKeys: readonly ItemKey[],
  projection?: { expression: string; names: Record<string, string> },
): Promise<Record<string, unknown>[]> => {
  const read = projection
    ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
    : {};
  const results = await Promise.all(
    chunks(itemKeys, 100).map(async (chunk) => {
      const items: Record<string, unknown>[] = [];
      let pending: Record<string, unknown>[] | undefined = chunk;
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 0) {
          countMetric('RecoveredFaults');
          await backOff(attempt);
        }
        const response: BatchGetCommandOutput = await db().send(
          new BatchGetCommand({
            RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true, ...read } },
          }),
        );
        items.push(...(response.Responses?.[tableName()] ?? []));
        pending = response.UnprocessedKeys?.[tableName()]?.Keys;
      }
      return items;
    }),
  );
  return results.flat();
};

/** Items read together, found again by their keys. */
export interface ItemsByKey {
  get(key: ItemKey): Record<string, unknown> | undefined;
  readonly items: readonly Record<string, unknown>[];
}

const keyOf = (key: { pk: unknown; sk: unknown }) => `${String(key.pk)}\u0000${String(key.sk)}`;

/** One BatchGetItem (in chunks) whose items are then looked up by key. */
export const batchGetByKey = async (
  itemKeys: readonly ItemKey[],
  projection?: { expression: string; names: Record<string, string> },
): Promise<ItemsByKey> => {
  // Items are found again by their keys, so a projection reads those too.
  const withKeys = projection && {
    expression: `${projection.expression}, #keyPk, #keySk`,
    names: { ...projection.names, '#keyPk': 'pk', '#keySk': 'sk' },
  };
  const items = await batchGet(itemKeys, withKeys);
  const byKey = new Map(items.map((item) => [keyOf(item as ItemKey), item]));
  return { get: (key) => byKey.get(keyOf(key)), items };
};

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: ItemKey } };

/** BatchWriteItem requests in chunks of 25, retrying unprocessed items. */
const batchWrite = async (requests: readonly WriteRequest[]): Promise<void> => {
  for (const chunk of chunks(requests, 25)) {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await backOff(attempt);
      const response = await db().send(
        new BatchWriteCommand({
          RequestItems: { [tableName()]: pending },
        }),
      );
      pending = (response.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
};

/** BatchWriteItem puts in chunks of 25, retrying unprocessed items. */
export const batchPut = (items: readonly Record<string, unknown>[]): Promise<void> =>
  batchWrite(items.map((Item) => ({ PutRequest: { Item } })));

/** BatchWriteItem deletes in chunks of 25, retrying unprocessed items; a missing item is no error. */
export const batchDelete = (itemKeys: readonly ItemKey[]): Promise<void> =>
  batchWrite(itemKeys.map((Key) => ({ DeleteRequest: { Key } })));
