import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../bin/local/service.js';
import { announce } from './child-server.js';

/**
 * One instance of the service as `npm start` serves it (the local API Gateway in front of the
 * functions), in a process of its own: the bench's server, and the "function instances" of tests
 * that need two. It uses the database of IDP_DYNAMODB_ENDPOINT and IDP_TABLE_NAME; instances given
 * the same INSTANCE_DATA_DIR and INSTANCE_ISSUER (the first instance's URL) share signing keys and
 * accept each other's tokens. A test pins the time its gateway stamps on requests by sending it
 * `{ pinClock: epochMillis }` (answered `{ clockPinned }`).
 */
const env = process.env;
/** The time its gateway stamps on requests: the machine's until the test pins it (`{ pinClock }`). */
let pinned: number | undefined;
process.on('message', (message: { pinClock?: number }) => {
  if (typeof message.pinClock !== 'number') return;
  pinned = message.pinClock;
  process.send?.({ clockPinned: pinned });
});
const service = await startLocalService({
  clock: () => pinned ?? Date.now(),
  port: 0,
  dynamoDbEndpoint: env.IDP_DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
  dataDirectory: env.INSTANCE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'idp-instance-')),
  ...(env.IDP_TABLE_NAME ? { tableName: env.IDP_TABLE_NAME } : {}),
  ...(env.INSTANCE_ISSUER ? { issuer: env.INSTANCE_ISSUER } : {}),
});
announce({
  baseUrl: service.baseUrl,
  tokenUrl: `${service.baseUrl}/oauth2/token`,
  organizationId: service.organizationId,
  client_id: service.clientId,
  client_secret: service.clientSecret,
});
