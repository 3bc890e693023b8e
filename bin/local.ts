import { resolve } from 'node:path';
import { assertPortFree, PortInUseError, startDynamoDbLocal } from './local/dynamodb-local.js';
import { LOCAL_REGION, localAccessKeyId } from './local/local-access-key.js';
import { startLocalService } from './local/service.js';
import { prepareSignInTrial, signInSteps } from './local/try-sign-in.js';

/**
 * `npm start`: DynamoDB Local, the table, system data, a default organization with an admin
 * API client, and the API on PORT, through the local API Gateway emulation.
 */
const env = process.env;
const port = Number(env.PORT ?? 3000);
const dynamoPort = Number(env.IDP_DYNAMODB_PORT ?? 8000);
const dataDirectory = resolve(env.IDP_DATA_DIR ?? '.data');
const inMemory = env.IDP_IN_MEMORY === '1' || env.IDP_IN_MEMORY === 'true';

const dynamoDirectory = inMemory ? undefined : resolve(dataDirectory, 'dynamodb');

// Local runs use credentials of their own whatever AWS profile the shell has, so nothing can reach
// a real account: an access key id kept with the data, which picks its database in DynamoDB Local
// (./local/local-access-key.ts: the port is open to the network).
Object.assign(env, {
  AWS_ACCESS_KEY_ID: localAccessKeyId(dynamoDirectory),
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_REGION: LOCAL_REGION,
});
delete env.AWS_PROFILE;
delete env.AWS_SESSION_TOKEN;

// The SDK's notice that its releases after January 2027 need Node 22 (docs/behaviour.md, "Limits and known
// gaps") would open every start; this is its documented switch, and other warnings still show.
env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** A taken port ends the start with one line naming the variable to change, and exit code 1. */
const portInUse = (taken: number, what: string, variable: string): never => {
  const suggestion = taken < 65535 ? taken + 1 : taken - 1;
  console.error(
    `Port ${taken} is in use (${what}). Set ${variable} to a free port, e.g. ${variable}=${suggestion} npm start`,
  );
  process.exit(1);
};
const isAddressInUse = (error: unknown) =>
  error instanceof PortInUseError || (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

// Both ports are checked before Java starts; the API binds the host the gateway listens on.
try {
  await assertPortFree(port, '127.0.0.1');
} catch (error) {
  if (isAddressInUse(error)) portInUse(port, 'API', 'PORT');
  console.error(`Could not start the service: ${(error as Error).message}`);
  process.exit(1);
}

let dynamo: Awaited<ReturnType<typeof startDynamoDbLocal>>;
try {
  dynamo = await startDynamoDbLocal({
    port: dynamoPort,
    ...(dynamoDirectory ? { dataDirectory: dynamoDirectory } : {}),
  });
} catch (error) {
  if (isAddressInUse(error)) portInUse(dynamoPort, 'DynamoDB Local', 'IDP_DYNAMODB_PORT');
  console.error(`Could not start DynamoDB Local: ${(error as Error).message}`);
  process.exit(1);
}

let service: Awaited<ReturnType<typeof startLocalService>>;
let trial: Awaited<ReturnType<typeof prepareSignInTrial>>;
try {
  service = await startLocalService({
    port,
    dynamoDbEndpoint: dynamo.endpoint,
    dataDirectory,
    auditEventsFile: resolve(dataDirectory, 'audit-events.jsonl'),
    ...(env.IDP_ADMIN_CLIENT_ID ? { adminClientId: env.IDP_ADMIN_CLIENT_ID } : {}),
    ...(env.IDP_ADMIN_CLIENT_SECRET ? { adminClientSecret: env.IDP_ADMIN_CLIENT_SECRET } : {}),
    ...(env.IDP_ISSUER ? { issuer: env.IDP_ISSUER } : {}),
    beforeReady: async (admin) => {
      trial = await prepareSignInTrial(admin.organizationId, admin.adminRoleId);
    },
  });
} catch (error) {
  await dynamo.stop();
  // Taken between the check above and the gateway's listen.
  if (isAddressInUse(error)) portInUse(port, 'API', 'PORT');
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
  Audit events:    tail -f ${resolve(dataDirectory, 'audit-events.jsonl')}
  SCIM base URL:   ${service.baseUrl}/scim/v2 (a token: npm run --silent admin -- scim token create --org ${service.organizationId} --name Okta)
  Organization:    ${service.organizationId}
  Admin client id: ${service.clientId}
  Admin secret:    ${service.clientSecret}

Try it:

  TOKEN=$(curl -s -X POST ${tokenUrl} -d grant_type=client_credentials -d client_id=${service.clientId} -d client_secret=${service.clientSecret} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s -H "Authorization: Bearer $TOKEN" ${service.baseUrl}/idp/permissions
${trial ? signInSteps(service.baseUrl, trial) : ''}
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
