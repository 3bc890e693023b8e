import { ScanCommand as RawScanCommand } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.js';
import { groupWriteGrant } from '../../shared/api/table-writes.js';
import {
  AccessDeniedException,
  db,
  dynamoDbClient,
  SCAN_REFUSED,
  tableName,
  withTableGrant,
} from '../../shared/store/dynamo.js';
import { useDatabase } from '../support/database.js';

/**
 * What the process's clients refuse before sending. The service never scans (one Query per page):
 * a Scan anywhere (a function, the local server, the CLI, a test) fails where it is made. A
 * function run by the local gateway writes only what its IAM statements let it write deployed.
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

it("refuses, where a function's grant is set, a write outside it, as IAM would deployed; writes inside it go", async () => {
  const asOauth = { functionName: 'idp-oauth', allows: groupWriteGrant('oauth', ROUTES) };
  const item = (pk: string) => ({ pk, sk: 'GUARD', note: 'client-guards' });
  /** A transaction of the oauth function: a refresh token's put beside `other`. */
  const transactionAsOauth = (other: Record<string, unknown>) =>
    withTableGrant(asOauth, () =>
      db().send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: tableName(), Item: item('REFRESH#guard') } }, other],
        }),
      ),
    );
  // Positive control: the oauth function writes a refresh token family.
  await withTableGrant(asOauth, () =>
    db().send(new PutCommand({ TableName: tableName(), Item: item('RFAMILY#guard') })),
  );
  // A user is not its to write, alone or inside a transaction, which then writes nothing.
  await expect(
    withTableGrant(asOauth, () =>
      db().send(new PutCommand({ TableName: tableName(), Item: item('ORG#guard') })),
    ),
  ).rejects.toThrow(AccessDeniedException);
  await expect(
    transactionAsOauth({ Put: { TableName: tableName(), Item: item('ORG#guard') } }),
  ).rejects.toThrow('idp-oauth is not authorized to perform dynamodb:PutItem on an item of ORG#guard');
  const read = (pk: string) =>
    db().send(new GetCommand({ TableName: tableName(), Key: { pk, sk: 'GUARD' } }));
  expect((await read('RFAMILY#guard')).Item).toBeDefined();
  expect((await read('REFRESH#guard')).Item).toBeUndefined();
  // A transaction's condition check of an audit record is refused too: no function may read one.
  await expect(
    transactionAsOauth({
      ConditionCheck: {
        TableName: tableName(),
        Key: { pk: 'AUDIT#guard', sk: 'GUARD' },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    }),
  ).rejects.toThrow(
    'idp-oauth is not authorized to perform dynamodb:ConditionCheckItem on an item of AUDIT#guard',
  );
  // Outside any function (the CLI, a test's own setup) nothing is refused.
  await db().send(new PutCommand({ TableName: tableName(), Item: item('ORG#guard') }));
});
