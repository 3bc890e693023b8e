import { ScanCommand as RawScanCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { ROUTES } from '../../shared/api/routes.js';
import { groupTableGrant } from '../../shared/api/table-requests.js';
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
 * function run by the local gateway reads and writes only what its IAM statements let it deployed.
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
  const asOauth = { functionName: 'idp-oauth', ...groupTableGrant('oauth', ROUTES) };
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

it("refuses, where a function's grant is set, a read of an audit record or an audit index, as IAM would deployed", async () => {
  const asUsers = { functionName: 'idp-users', ...groupTableGrant('users', ROUTES) };
  const asAudit = { functionName: 'idp-audit', ...groupTableGrant('audit', ROUTES) };
  const get = (pk: string) => new GetCommand({ TableName: tableName(), Key: { pk, sk: 'GUARD' } });
  const batchGet = (pk: string) =>
    new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: [{ pk, sk: 'GUARD' }] } } });
  const transactGet = (pk: string) =>
    new TransactGetCommand({
      TransactItems: [{ Get: { TableName: tableName(), Key: { pk, sk: 'GUARD' } } }],
    });
  const query = (pk: string) =>
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: '#partition = :partition',
      ExpressionAttributeNames: { '#partition': 'pk' },
      ExpressionAttributeValues: { ':partition': pk },
    });
  const indexQuery = (index: string) =>
    new QueryCommand({
      TableName: tableName(),
      IndexName: index,
      KeyConditionExpression: `${index}pk = :partition`,
      ExpressionAttributeValues: { ':partition': 'NO#SUCH#PARTITION' },
    });
  // Positive controls: the users function reads any other partition, through each kind of read.
  for (const read of [get, batchGet, transactGet, query])
    await withTableGrant(asUsers, () => db().send(read('ORG#guard') as GetCommand));
  await withTableGrant(asUsers, () => db().send(indexQuery('gsi1')));
  // An audit record through the table: refused to every function, the audit function too.
  for (const grant of [asUsers, asAudit])
    for (const [read, action] of [
      [get, 'GetItem'],
      [batchGet, 'BatchGetItem'],
      [transactGet, 'GetItem'],
      [query, 'Query'],
    ] as const)
      await expect(
        withTableGrant(grant, () => db().send(read('AUDIT#guard') as GetCommand)),
        `${grant.functionName} ${action}`,
      ).rejects.toThrow(
        `${grant.functionName} is not authorized to perform dynamodb:${action} on an item of AUDIT#guard`,
      );
  // The audit indexes: the audit function's alone.
  await expect(withTableGrant(asUsers, () => db().send(indexQuery('gsi2')))).rejects.toThrow(
    'idp-users is not authorized to perform dynamodb:Query on index gsi2',
  );
  expect((await withTableGrant(asAudit, () => db().send(indexQuery('gsi2')))).Items).toEqual([]);
});
