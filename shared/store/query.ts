import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './dynamo.js';
import { TABLE_SCHEMA } from './keys.js';

/** Every item a Query matches, following LastEvaluatedKey. Only for small, bounded sets. */
export const queryAll = async (
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

export const queryPartition = (pk: string, skPrefix?: string, options: { consistent?: boolean } = {}) =>
  queryAll({
    KeyConditionExpression: skPrefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk, ...(skPrefix ? { ':prefix': skPrefix } : {}) },
    ...(options.consistent ? { ConsistentRead: true } : {}),
  });

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
