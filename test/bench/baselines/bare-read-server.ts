import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { announce } from '../../support/child-server.js';

/**
 * The baselines of `GET /idp/users/{id}` in `npm run bench`: a bare HTTP server reading the same
 * user item from the same table. BARE_MODE `get-item` does only the GetItem; `jwt-counter-get-item`
 * first verifies the bearer token as the gateway does (aws-jwt-verify, the service's JWKS), then
 * increments one counter item and reads the item, one after the other, as a plain implementation
 * of the same contract would. `jwt-limit-batch-get` makes the service's own DynamoDB requests
 * instead (a conditional increment that enforces a limit, and a strongly consistent BatchGetItem of
 * the item with its organization's): not a target's baseline, it shows what those shapes cost
 * DynamoDB Local, which shares this machine's CPU with the servers.
 */
const env = process.env;
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.IDP_DYNAMODB_ENDPOINT }));
const table = env.IDP_TABLE_NAME ?? 'idp';
const key = JSON.parse(env.BARE_ITEM_KEY ?? '{}') as Record<string, string>;
const withChecks = env.BARE_MODE !== 'get-item';
const asTheService = env.BARE_MODE === 'jwt-limit-batch-get';
// The local service serves its JWKS over http, which aws-jwt-verify's own fetcher refuses.
const httpFetcher = { fetch: async (uri: string) => (await fetch(uri)).arrayBuffer() };
const verifier = withChecks
  ? JwtVerifier.create(
      {
        issuer: env.BARE_ISSUER ?? '',
        audience: env.BARE_AUDIENCE ?? 'idp',
        jwksUri: env.BARE_JWKS_URI ?? '',
      },
      { jwksCache: new SimpleJwksCache({ fetcher: httpFetcher }) },
    )
  : undefined;

const plainIncrement = (second: number) => ({
  TableName: table,
  Key: { pk: `BENCH#${second}`, sk: 'COUNTER' },
  UpdateExpression: 'ADD admitted :one',
  ExpressionAttributeValues: { ':one': 1 },
});

/** The rate limit's write (shared/store/rate-limit-store.ts): admitted only below the bound. */
const limitedIncrement = (second: number) => ({
  TableName: table,
  Key: { pk: `BENCH#${second}#${Math.floor(Math.random() * 40)}`, sk: 'COUNTER' },
  UpdateExpression: 'SET admitted = if_not_exists(admitted, :zero) + :one, expiresAt = :expiresAt',
  ConditionExpression:
    '(attribute_exists(allowance) AND admitted < allowance) OR ' +
    '(attribute_not_exists(allowance) AND (attribute_not_exists(admitted) OR admitted < :bound))',
  ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':bound': 1_000_000, ':expiresAt': second + 60 },
  ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
});

const server = createServer(async (request, response) => {
  try {
    if (verifier) {
      await verifier.verify(request.headers.authorization?.replace(/^Bearer /, '') ?? '');
      const second = Math.floor(Date.now() / 1000);
      await db.send(new UpdateCommand(asTheService ? limitedIncrement(second) : plainIncrement(second)));
    }
    const Item = asTheService
      ? (
          await db.send(
            new BatchGetCommand({
              RequestItems: { [table]: { Keys: [key, { pk: key.pk, sk: 'ORG' }], ConsistentRead: true } },
            }),
          )
        ).Responses?.[table]?.find((item) => item.sk === key.sk)
      : (await db.send(new GetCommand({ TableName: table, Key: key }))).Item;
    response
      .writeHead(Item ? 200 : 404, { 'content-type': 'application/json' })
      .end(JSON.stringify(Item ?? null));
  } catch {
    response.writeHead(401).end();
  }
});
server.listen(0, '127.0.0.1', () => {
  announce({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
});
