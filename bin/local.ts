import { resolve } from 'node:path';
import { startDynamoDbLocal } from './local/dynamodb-local.js';
import { startLocalService } from './local/service.js';

/**
 * `npm start`: DynamoDB Local, the table, system data, a default organization with an admin
 * API client, and the API on PORT, through the local API Gateway emulation.
 */
const env = process.env;
const port = Number(env.PORT ?? 3000);
const dynamoPort = Number(env.IDP_DYNAMODB_PORT ?? 8000);
const dataDirectory = resolve(env.IDP_DATA_DIR ?? '.data');
const inMemory = env.IDP_IN_MEMORY === '1' || env.IDP_IN_MEMORY === 'true';

// Local runs use fixed placeholder credentials: with a shared database file they keep seeing
// the same data whatever AWS profile the shell has, and nothing can reach a real account.
Object.assign(env, { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'us-east-1' });
delete env.AWS_PROFILE;
delete env.AWS_SESSION_TOKEN;

const dynamo = await startDynamoDbLocal({
  port: dynamoPort,
  ...(inMemory ? {} : { dataDirectory: resolve(dataDirectory, 'dynamodb') }),
  sharedDb: true,
});

let service: Awaited<ReturnType<typeof startLocalService>>;
try {
  service = await startLocalService({
    port,
    dynamoDbEndpoint: dynamo.endpoint,
    dataDirectory,
    ...(env.IDP_ADMIN_CLIENT_ID ? { adminClientId: env.IDP_ADMIN_CLIENT_ID } : {}),
    ...(env.IDP_ADMIN_CLIENT_SECRET ? { adminClientSecret: env.IDP_ADMIN_CLIENT_SECRET } : {}),
  });
} catch (error) {
  await dynamo.stop();
  console.error(`Could not start the service: ${(error as Error).message}`);
  process.exit(1);
}

const tokenUrl = `${service.baseUrl}/oauth2/token`;
console.log(`
IDP is running.

  Base URL:        ${service.baseUrl}/idp
  Token URL:       ${tokenUrl}
  OpenAPI:         ${service.baseUrl}/idp/openapi.json
  DynamoDB Local:  ${dynamo.endpoint} (${inMemory ? 'in memory' : `data in ${dataDirectory}`})
  Organization:    ${service.organizationId}
  Admin client id: ${service.clientId}
  Admin secret:    ${service.clientSecret}

Try it:

  TOKEN=$(curl -s -X POST ${tokenUrl} -d grant_type=client_credentials -d client_id=${service.clientId} -d client_secret=${service.clientSecret} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s -H "Authorization: Bearer $TOKEN" ${service.baseUrl}/idp/permissions

Press Ctrl-C to stop.
`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('Stopping…');
  await service.close();
  await dynamo.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
