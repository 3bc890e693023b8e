import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../../shared/store/keys.js';

const globalIndex = (index: (typeof TABLE_SCHEMA.indexes)[number]) => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

/**
 * As the deployed table (lib/idp-table.ts): new images, which `npm start`'s audit events file
 * follows. Only when asked: DynamoDB Local then keeps a stream record of every write, which a
 * table nobody follows (the tests') would pay for on each one.
 */
const STREAM = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' as const };

/** Creates the service table from the shared key schema unless it exists (DynamoDB Local). */
export const ensureTable = async (
  client: DynamoDBClient,
  tableName: string,
  options: { stream?: boolean } = {},
): Promise<void> => {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set(
      [...(Table?.GlobalSecondaryIndexes ?? []), ...(Table?.LocalSecondaryIndexes ?? [])].map(
        (i) => i.IndexName,
      ),
    );
    const missingLocal = TABLE_SCHEMA.localIndexes.filter((i) => !present.has(i.name));
    if (missingLocal.length > 0) {
      throw new Error(
        `The local table "${tableName}" lacks index ${missingLocal.map((i) => i.name).join(', ')}: it was created by an older version. Remove the data directory (or run with IDP_IN_MEMORY=1).`,
      );
    }
    if (options.stream && !Table?.StreamSpecification?.StreamEnabled) {
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: STREAM }));
    }
    // Global indexes added by a newer version are created in place, one per update as DynamoDB asks.
    for (const index of TABLE_SCHEMA.indexes.filter((i) => !present.has(i.name))) {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({
            AttributeName: name,
            AttributeType: 'S',
          })),
          GlobalSecondaryIndexUpdates: [{ Create: globalIndex(index) }],
        }),
      );
    }
    return;
  } catch (error) {
    if (!(error instanceof Error && error.name === 'ResourceNotFoundException')) throw error;
  }
  const keyNames = [
    TABLE_SCHEMA.partitionKey,
    TABLE_SCHEMA.sortKey,
    ...TABLE_SCHEMA.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
    ...TABLE_SCHEMA.localIndexes.map((index) => index.sortKey),
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: keyNames.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: TABLE_SCHEMA.indexes.map(globalIndex),
        ...(options.stream ? { StreamSpecification: STREAM } : {}),
        LocalSecondaryIndexes: TABLE_SCHEMA.localIndexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    // Another process created it first: fine.
    if (!(error instanceof Error && error.name === 'ResourceInUseException')) throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.timeToLiveAttribute, Enabled: true },
    }),
  );
};
