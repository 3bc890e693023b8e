import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { createUser, findUserByEmail } from '../../shared/store/user-repository.js';
import { type DynamoDbProxy, startDynamoDbProxy } from '../support/dynamodb-proxy.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/**
 * The store's DynamoDB client is the SDK's, and these are the behaviours the service relies on it
 * for, shown through a proxy that loses answers or stalls in front of DynamoDB Local.
 */
useDatabase();

let proxy: DynamoDbProxy;
beforeAll(async () => {
  proxy = await startDynamoDbProxy(String(process.env.IDP_DYNAMODB_ENDPOINT));
  process.env.IDP_DYNAMODB_ENDPOINT = proxy.endpoint;
  reloadConfig();
});
afterAll(() => proxy.close());

const newUser = (organizationId: string, email: string) =>
  ({ organizationId, email, name: 'Lost Answer', userType: 'STANDARD', createdBy: 'test' }) as const;

describe('the SDK client under faults', () => {
  it('answers a committed transaction whose answer was lost as a success, not a conflict', async () => {
    const org = (await createTestOrganization()).id;
    // Positive control: the same creation with nothing lost.
    await createUser(newUser(org, 'control@example.com'));

    proxy.received.length = 0;
    proxy.faults('TransactWriteItems', 'lose-answer');
    const { user } = await createUser(newUser(org, 'lost@example.com'));
    expect((await findUserByEmail(org, 'lost@example.com'))?.id).toBe(user.id);

    // DynamoDB committed the first attempt; the SDK sent it again with the same token, and
    // DynamoDB answered the resend as the success it already was.
    const sent = proxy.received.filter((request) => request.operation === 'TransactWriteItems');
    expect(sent).toHaveLength(2);
    expect(sent[0]?.clientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]?.clientRequestToken).toBe(sent[0]?.clientRequestToken);
  });

  it('gives up on a stalled connection and retries it, instead of waiting for the function timeout', async () => {
    // The deployed functions' timeouts (the tests allow DynamoDB Local more).
    process.env.IDP_AWS_CONNECTION_TIMEOUT_MS = '1000';
    process.env.IDP_AWS_REQUEST_TIMEOUT_MS = '2500';
    reloadConfig();
    proxy.received.length = 0;
    proxy.faults('GetItem', 'stall');
    const item = await db().send(
      new GetCommand({ TableName: tableName(), Key: { pk: 'NOTHING', sk: 'HERE' }, ConsistentRead: true }),
    );
    expect(item.Item).toBeUndefined();
    expect(item.$metadata.attempts).toBe(2);
    expect(proxy.received.map((request) => request.operation)).toEqual(['GetItem', 'GetItem']);
  });
});
