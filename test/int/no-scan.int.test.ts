import { ScanCommand as RawScanCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { db, dynamoDbClient, SCAN_REFUSED, tableName } from '../../shared/store/dynamo.js';
import { useDatabase } from '../support/database.js';

/**
 * The service never scans (one Query per page): its clients refuse a Scan before sending it, so
 * a Scan anywhere (a function, the local server, the CLI, a test) fails where it is made.
 */
useDatabase();

it('refuses a Scan through either of the process clients, and sends a Query', async () => {
  // Positive control: the same client, the same table, a Query.
  const queried = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'NO#SUCH#PARTITION' },
    }),
  );
  expect(queried.Items).toEqual([]);
  await expect(db().send(new ScanCommand({ TableName: tableName() }))).rejects.toThrow(SCAN_REFUSED);
  await expect(dynamoDbClient().send(new RawScanCommand({ TableName: tableName() }))).rejects.toThrow(
    SCAN_REFUSED,
  );
});
