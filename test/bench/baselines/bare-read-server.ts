import { createServer } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { announce } from '../../support/child-server.js';

/**
 * The baselines of `GET /idp/users/{id}` in `npm run bench`: a bare HTTP server reading the same
 * user item from the same table. BARE_MODE `get-item` does only the GetItem; `jwt-counter-get-item`
 * first verifies the bearer token as the gateway does (aws-jwt-verify, the service's JWKS), then
 * increments one counter item and reads the item, one after the other, as a plain implementation
 * of the same contract would.
 */
const env = process.env;
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: env.IDP_DYNAMODB_ENDPOINT }));
const table = env.IDP_TABLE_NAME ?? 'idp';
const key = JSON.parse(env.BARE_ITEM_KEY ?? '{}') as Record<string, string>;
const withChecks = env.BARE_MODE === 'jwt-counter-get-item';
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

const server = createServer(async (request, response) => {
  try {
    if (verifier) {
      await verifier.verify(request.headers.authorization?.replace(/^Bearer /, '') ?? '');
      await db.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: `BENCH#${Math.floor(Date.now() / 1000)}`, sk: 'COUNTER' },
          UpdateExpression: 'ADD admitted :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    }
    const { Item } = await db.send(new GetCommand({ TableName: table, Key: key }));
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
