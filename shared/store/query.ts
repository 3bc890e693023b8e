import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './dynamo.js';
import { keys, TABLE_SCHEMA } from './keys.js';

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/**
 * How many more items reads may take, shared by reads running side by side: each takes what a
 * page brings, and stops once `left` is below zero (the caller then refuses the whole answer).
 */
export interface ItemBudget {
  left: number;
}

/**
 * Every item a Query matches, following LastEvaluatedKey. Only for small, bounded sets, or under
 * a budget: then only the items read until it ran out.
 */
export const queryAll = async (
  input: QueryInput,
  budget?: ItemBudget,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    if (budget && budget.left < 0) break;
    const page = await db().send(
      new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    if (budget) budget.left -= page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/** Items of a partition, all of them or those whose sort key starts with `skPrefix`. */
export const queryPartition = (
  pk: string,
  skPrefix?: string,
  options: { consistent?: boolean; budget?: ItemBudget } = {},
) =>
  queryAll(
    {
      KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk, ...(skPrefix ? { ':prefix': skPrefix } : {}) },
      ...(options.consistent ? { ConsistentRead: true } : {}),
    },
    options.budget,
  );

const [directoryIndex] = TABLE_SCHEMA.indexes;

/** Every item of a small cross-partition directory (operators' listings), in `gsi1sk` order.
 * Reads the global index, so it is eventually consistent. */
export const queryDirectory = (directory: { gsi1pk: string }) =>
  queryAll({
    IndexName: directoryIndex.name,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': directoryIndex.partitionKey },
    ExpressionAttributeValues: { ':pk': directory.gsi1pk },
  });

/** Items of the organization's listing index whose listing sort key starts with `prefix`. */
export const queryListingPrefix = (orgId: string, prefix: string) =>
  queryAll({
    IndexName: TABLE_SCHEMA.localIndexes[0].name,
    KeyConditionExpression: 'pk = :pk AND begins_with(#listing, :prefix)',
    ExpressionAttributeNames: { '#listing': TABLE_SCHEMA.localIndexes[0].sortKey },
    ExpressionAttributeValues: { ':pk': keys.organizationPartition(orgId), ':prefix': prefix },
    ConsistentRead: true,
  });
