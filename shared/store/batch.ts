import { BatchGetCommand, type BatchGetCommandOutput, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './dynamo.js';
import type { ItemKey } from './keys.js';

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) =>
    items.slice(index * size, index * size + size),
  );

/**
 * BatchGetItem in chunks of 100, retrying unprocessed keys; chunks run in parallel. Strongly
 * consistent: these reads decide what a token grants and whether a write may proceed, so a
 * change made a moment earlier must be seen.
 */
export const batchGet = async (itemKeys: readonly ItemKey[]): Promise<Record<string, unknown>[]> => {
  const results = await Promise.all(
    chunks(itemKeys, 100).map(async (chunk) => {
      const items: Record<string, unknown>[] = [];
      let pending: Record<string, unknown>[] | undefined = chunk;
      for (let attempt = 0; pending && pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
        const response: BatchGetCommandOutput = await db().send(
          new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
        );
        items.push(...(response.Responses?.[tableName()] ?? []));
        pending = response.UnprocessedKeys?.[tableName()]?.Keys;
      }
      return items;
    }),
  );
  return results.flat();
};

/** BatchWriteItem puts in chunks of 25, retrying unprocessed items. */
export const batchPut = async (items: readonly Record<string, unknown>[]): Promise<void> => {
  for (const chunk of chunks(items, 25)) {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 2 ** attempt * 10));
      const response = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      pending = (response.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
    }
  }
};
