import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../shared/store/dynamo.js';

/** CPU milliseconds per call (user + system), over `count` calls in sequence after a warm-up. */
const cpuPerCall = async (call: () => Promise<unknown>, count: number) => {
  for (let warmup = 0; warmup < 300; warmup++) await call();
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) await call();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000 / count;
};

/**
 * Why the functions send DynamoDB calls with their own client (shared/store/dynamodb-client.ts):
 * the CPU one GetItem of the same item costs through it and through the AWS SDK's document client,
 * against the same DynamoDB Local, alternating rounds.
 */
export const benchDynamoDbCalls = async (options: {
  dynamoDbEndpoint: string;
  rounds: number;
  calls: number;
}) => {
  const key = { pk: 'BENCH#DYNAMODB-CALLS', sk: 'ITEM' };
  await db().send('PutItem', { TableName: tableName(), Item: { ...key, name: 'x'.repeat(60), count: 1 } });
  const sdk = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: options.dynamoDbEndpoint }));
  const results: { own: number; sdk: number }[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const own = await cpuPerCall(
      () => db().send('GetItem', { TableName: tableName(), Key: key }),
      options.calls,
    );
    const viaSdk = await cpuPerCall(
      () => sdk.send(new GetCommand({ TableName: tableName(), Key: key })),
      options.calls,
    );
    console.log(
      `DynamoDB call round ${round + 1}: GetItem ${own.toFixed(2)} ms CPU with the service's client, ${viaSdk.toFixed(2)} ms with the SDK's document client (${(own / viaSdk).toFixed(2)}x)`,
    );
    results.push({ own, sdk: viaSdk });
  }
  return results;
};
