import { Agent, request as httpRequest } from 'node:http';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { processCpuMillis } from '../test/bench/process-cpu.js';
import { startDynamoDbLocal } from './local/dynamodb-local.js';
import { ensureTable } from './local/table.js';

/**
 * `npx tsx bin/request-cost.ts`: what one DynamoDB request costs the test suite's two busiest
 * processes, on this machine (docs/testing.md, "Suite time"):
 * - the caller's CPU for a GetItem through the DocumentClient (what the service and the tests
 *   send every request with), beside the same request as bare HTTP;
 * - DynamoDB Local's CPU for a PutItem, GetItem and UpdateItem on the service's table (eight
 *   global indexes and a local one) beside a table with none.
 * Figures are medians of three rounds after a warm-up, in microseconds (caller) and ms (Java).
 */

const ROUNDS = 3;
const REQUESTS = 2000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const dynamo = await startDynamoDbLocal({ port: 8745, javaOptions: '-XX:+UseSerialGC' });
const endpoint = dynamo.endpoint;
const raw = new DynamoDBClient({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'requestcost', secretAccessKey: 'local' },
});
const documents = DynamoDBDocumentClient.from(raw);

try {
  await ensureTable(raw, 'service');
  await raw.send(
    new CreateTableCommand({
      TableName: 'plain',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  const key = { pk: 'ORG#o', sk: 'USER#1' };
  await documents.send(new PutCommand({ TableName: 'service', Item: { ...key, name: 'x'.repeat(50) } }));

  // The caller's side: the same GetItem through the SDK, and as the bare HTTP request it becomes.
  const agent = new Agent({ keepAlive: true });
  const body = JSON.stringify({ TableName: 'service', Key: { pk: { S: key.pk }, sk: { S: key.sk } } });
  const bareGet = () =>
    new Promise<void>((resolve, reject) => {
      const sent = httpRequest(
        endpoint,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/x-amz-json-1.0',
            'x-amz-target': 'DynamoDB_20120810.GetItem',
            // DynamoDB Local reads the database from the key id and checks no signature.
            authorization:
              'AWS4-HMAC-SHA256 Credential=requestcost/20260101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
            'content-length': Buffer.byteLength(body),
          },
        },
        (answer) => {
          answer.resume();
          answer.on('end', resolve);
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  const sdkGet = () => documents.send(new GetCommand({ TableName: 'service', Key: key }));
  const callerMicros = async (send: () => Promise<unknown>) => {
    const rounds: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const start = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i++) await send();
      const used = process.cpuUsage(start);
      if (round > 0) rounds.push((used.user + used.system) / REQUESTS);
    }
    return median(rounds);
  };
  const sdk = await callerMicros(sdkGet);
  const bare = await callerMicros(bareGet);
  console.log(`caller CPU per GetItem: DocumentClient ${sdk.toFixed(0)} µs, bare HTTP ${bare.toFixed(0)} µs`);

  // DynamoDB Local's side: the same requests on the service's table and on one without indexes.
  const javaMillis = async (send: (i: number) => Promise<unknown>) => {
    const rounds: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const before = processCpuMillis(dynamo.pid) ?? 0;
      for (let i = 0; i < REQUESTS; i += 5) await Promise.all([0, 1, 2, 3, 4].map((j) => send(i + j)));
      if (round > 0) rounds.push(((processCpuMillis(dynamo.pid) ?? 0) - before) / REQUESTS);
    }
    return median(rounds);
  };
  for (const table of ['service', 'plain']) {
    const item = (i: number) => ({ pk: `ORG#o${i % 7}`, sk: `USER#${i}`, name: 'x'.repeat(50) });
    const put = await javaMillis((i) => documents.send(new PutCommand({ TableName: table, Item: item(i) })));
    const get = await javaMillis((i) =>
      documents.send(new GetCommand({ TableName: table, Key: { pk: `ORG#o${i % 7}`, sk: `USER#${i}` } })),
    );
    const update = await javaMillis((i) =>
      documents.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `RATE#o${i % 7}`, sk: 'SECOND' },
          UpdateExpression: 'ADD admitted :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
    console.log(
      `DynamoDB Local CPU per request, ${table === 'service' ? "the service's table" : 'a table without indexes'}: ` +
        `PutItem ${put.toFixed(2)} ms, GetItem ${get.toFixed(2)} ms, UpdateItem ${update.toFixed(2)} ms`,
    );
  }
} finally {
  raw.destroy();
  await dynamo.stop();
}
