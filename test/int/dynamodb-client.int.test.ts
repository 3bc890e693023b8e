import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/store/dynamo.js';
import { DynamoDbClient, DynamoDbError } from '../../shared/store/dynamodb-client.js';
import { useDatabase } from '../support/database.js';

/**
 * The service's own DynamoDB client: against DynamoDB Local for what DynamoDB answers, and against
 * a stand-in server for what it sends and how it retries.
 */
useDatabase();

const partition = () => `TEST#${randomUUID()}`;
const rejectionOf = async (promise: Promise<unknown>): Promise<DynamoDbError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DynamoDbError)) throw new Error(`expected a DynamoDbError, got ${String(error)}`);
  return error;
};

describe('DynamoDbClient against DynamoDB Local', () => {
  it('writes and reads every attribute type in the document format', async () => {
    const item = {
      pk: partition(),
      sk: 'ITEM',
      text: 'naïve ✓',
      empty: '',
      count: 42,
      fraction: -0.5,
      flag: false,
      nothing: null,
      list: ['a', 1, { nested: true }],
      map: { inner: { deeper: 'yes' } },
      names: new Set(['x', 'y']),
      numbers: new Set([1, 2]),
    };
    await db().send('PutItem', { TableName: tableName(), Item: { ...item, left: undefined } });
    const { Item } = await db().send('GetItem', {
      TableName: tableName(),
      Key: { pk: item.pk, sk: 'ITEM' },
      ConsistentRead: true,
    });
    expect(Item).toEqual(item);
    const missing = await db().send('GetItem', { TableName: tableName(), Key: { pk: item.pk, sk: 'NONE' } });
    expect(missing.Item).toBeUndefined();
  });

  it('updates with expression values and answers the new item; deletes answering the old one', async () => {
    const key = { pk: partition(), sk: 'ITEM' };
    const { Attributes } = await db().send('UpdateItem', {
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET tags = :tags ADD visits :one',
      ExpressionAttributeValues: { ':tags': ['a'], ':one': 1 },
      ReturnValues: 'ALL_NEW',
    });
    expect(Attributes).toEqual({ ...key, tags: ['a'], visits: 1 });
    const removed = await db().send('DeleteItem', {
      TableName: tableName(),
      Key: key,
      ReturnValues: 'ALL_OLD',
    });
    expect(removed.Attributes).toEqual({ ...key, tags: ['a'], visits: 1 });
  });

  it('pages a Query with its last evaluated key', async () => {
    const pk = partition();
    await db().send('BatchWriteItem', {
      RequestItems: {
        [tableName()]: ['a', 'b', 'c'].map((sk) => ({
          PutRequest: { Item: { pk, sk, n: sk.charCodeAt(0) } },
        })),
      },
    });
    const query = {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
    };
    const first = await db().send('Query', { ...query, Limit: 2, ConsistentRead: true });
    expect(first.Items?.map((item) => item.sk)).toEqual(['a', 'b']);
    expect(first.LastEvaluatedKey).toEqual({ pk, sk: 'b' });
    const rest = await db().send('Query', {
      ...query,
      ExclusiveStartKey: first.LastEvaluatedKey,
      ConsistentRead: true,
    });
    expect(rest.Items).toEqual([{ pk, sk: 'c', n: 99 }]);
    const read = await db().send('BatchGetItem', {
      RequestItems: {
        [tableName()]: {
          Keys: [
            { pk, sk: 'a' },
            { pk, sk: 'z' },
          ],
          ConsistentRead: true,
        },
      },
    });
    expect(read.Responses?.[tableName()]).toEqual([{ pk, sk: 'a', n: 97 }]);
  });

  it('throws DynamoDB refusals by name, with the item a failed condition met', async () => {
    const key = { pk: partition(), sk: 'ITEM' };
    await db().send('PutItem', { TableName: tableName(), Item: { ...key, state: 'taken' } });
    const failed = await rejectionOf(
      db().send('UpdateItem', {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #state = :new',
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':new': 'mine' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    expect([failed.name, failed.statusCode, failed.Item]).toEqual([
      'ConditionalCheckFailedException',
      400,
      { ...key, state: 'taken' },
    ]);

    const cancelled = await rejectionOf(
      db().send('TransactWriteItems', {
        TransactItems: [
          { Put: { TableName: tableName(), Item: { pk: partition(), sk: 'OTHER' } } },
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: key,
              ConditionExpression: '#state = :free',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':free': 'free' },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    expect(cancelled.name).toBe('TransactionCanceledException');
    expect(cancelled.CancellationReasons?.map((reason) => [reason.Code, reason.Item])).toEqual([
      ['None', undefined],
      ['ConditionalCheckFailed', { ...key, state: 'taken' }],
    ]);

    const invalid = await rejectionOf(db().send('GetItem', { TableName: tableName(), Key: { pk: key.pk } }));
    expect([invalid.name, invalid.statusCode]).toEqual(['ValidationException', 400]);
  });
});

describe('DynamoDbClient on the wire', () => {
  type Answer = (request: IncomingMessage, response: ServerResponse) => void;
  const servers: { close(): void }[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  /** A stand-in for DynamoDB answering each request with the next answer, recording what came. */
  const standIn = async (...answers: Answer[]) => {
    const received: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        const answer = answers[received.length - 1] ?? answers.at(-1);
        answer?.(request, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => server.close() });
    const client = new DynamoDbClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    return { client, received };
  };
  const json =
    (status: number, body: object): Answer =>
    (_, response) =>
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(body));
  const ok = json(200, { Item: { pk: { S: 'p' }, n: { N: '1' } } });
  const get = (client: DynamoDbClient) => client.send('GetItem', { TableName: 't', Key: { pk: 'p' } });

  it('sends the JSON protocol, signed with SigV4 for DynamoDB in the region', async () => {
    const { client, received } = await standIn(ok);
    expect((await get(client)).Item).toEqual({ pk: 'p', n: 1 });
    const [request] = received;
    expect(JSON.parse(request?.body ?? '')).toEqual({ TableName: 't', Key: { pk: { S: 'p' } } });
    expect(request?.headers['x-amz-target']).toBe('DynamoDB_20120810.GetItem');
    expect(request?.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(request?.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${process.env.AWS_ACCESS_KEY_ID}/\\d{8}/eu-west-1/dynamodb/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$`,
      ),
    );
  });

  it('answers what a batch left unprocessed in the document format, ready to send again', async () => {
    const unprocessedKeys = await standIn(
      json(200, {
        Responses: { t: [] },
        UnprocessedKeys: { t: { Keys: [{ pk: { S: 'p' } }], ConsistentRead: true } },
      }),
    );
    const read = await unprocessedKeys.client.send('BatchGetItem', {
      RequestItems: { t: { Keys: [{ pk: 'p' }], ConsistentRead: true } },
    });
    expect(read).toEqual({
      Responses: { t: [] },
      UnprocessedKeys: { t: { Keys: [{ pk: 'p' }], ConsistentRead: true } },
    });
    expect(JSON.parse(unprocessedKeys.received[0]?.body ?? '')).toEqual({
      RequestItems: { t: { Keys: [{ pk: { S: 'p' } }], ConsistentRead: true } },
    });

    const writes = [{ PutRequest: { Item: { pk: 'p', n: 2 } } }, { DeleteRequest: { Key: { pk: 'q' } } }];
    const wireWrites = [
      { PutRequest: { Item: { pk: { S: 'p' }, n: { N: '2' } } } },
      { DeleteRequest: { Key: { pk: { S: 'q' } } } },
    ];
    const unprocessedItems = await standIn(json(200, { UnprocessedItems: { t: wireWrites } }));
    const written = await unprocessedItems.client.send('BatchWriteItem', { RequestItems: { t: writes } });
    expect(written).toEqual({ UnprocessedItems: { t: writes } });
    expect(JSON.parse(unprocessedItems.received[0]?.body ?? '')).toEqual({ RequestItems: { t: wireWrites } });
  });

  it('retries server errors, throttling and dropped connections, up to three attempts', async () => {
    const throttled = json(400, {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'slow down',
    });
    const dropped: Answer = (request) => request.socket.destroy();
    const recovered = await standIn(json(500, { __type: 'InternalServerError' }), throttled, ok);
    expect((await get(recovered.client)).Item).toEqual({ pk: 'p', n: 1 });
    expect(recovered.received).toHaveLength(3);

    const reconnected = await standIn(dropped, ok);
    expect((await get(reconnected.client)).Item).toEqual({ pk: 'p', n: 1 });
    expect(reconnected.received).toHaveLength(2);

    const exhausted = await standIn(throttled);
    const error = await rejectionOf(get(exhausted.client));
    expect([error.name, error.message]).toEqual(['ProvisionedThroughputExceededException', 'slow down']);
    expect(exhausted.received).toHaveLength(3);
  });

  it('speaks TLS to an https endpoint and refuses one whose certificate it cannot verify', async () => {
    const { private: key, cert } = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      algorithm: 'sha256',
    });
    let requests = 0;
    const server = createTlsServer({ key, cert }, (_, response) => {
      requests++;
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => server.close() });
    const client = new DynamoDbClient({
      region: 'eu-west-1',
      endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    await expect(get(client)).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(requests).toBe(0);
  });

  it('does not retry a refusal, and names an answer that is not DynamoDB JSON by its status', async () => {
    const refused = await standIn(
      json(400, { __type: 'com.amazon.coral.validate#ValidationException', message: 'bad key' }),
    );
    const error = await rejectionOf(get(refused.client));
    expect([error.name, error.message, error.statusCode]).toEqual(['ValidationException', 'bad key', 400]);
    expect(refused.received).toHaveLength(1);

    const proxy = await standIn((_, response) => response.writeHead(502).end('<html>Bad gateway</html>'));
    const gatewayError = await rejectionOf(get(proxy.client));
    expect([gatewayError.name, gatewayError.statusCode]).toEqual(['HTTP502', 502]);
    expect(proxy.received).toHaveLength(3);
  });
});
