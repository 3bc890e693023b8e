import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../../shared/store/keys.js';

/** Creates the service table from the shared key schema unless it exists (DynamoDB Local). */
export const ensureTable = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set(
      [...(Table?.GlobalSecondaryIndexes ?? []), ...(Table?.LocalSecondaryIndexes ?? [])].map(
        (i) => i.IndexName,
      ),
    );
    const missing = [...TABLE_SCHEMA.indexes, ...TABLE_SCHEMA.localIndexes].filter(
      (i) => !present.has(i.name),
    );
    if (missing.length > 0) {
      throw new Error(
        `The local table "${tableName}" lacks index ${missing.map((i) => i.name).join(', ')}: it was created by an older version. Remove the data directory (or run with IDP_IN_MEMORY=1).`,
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
        GlobalSecondaryIndexes: TABLE_SCHEMA.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
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
