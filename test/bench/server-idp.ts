import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalService } from '../../bin/local/service.js';
import { announce } from './processes.js';

/**
 * IDP as `npm start` serves it (the local API Gateway in front of the functions), against the
 * bench's DynamoDB Local (IDP_DYNAMODB_ENDPOINT). Prints its URL and admin client, then serves.
 */
const service = await startLocalService({
  port: 0,
  dynamoDbEndpoint: process.env.BENCH_DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000',
  dataDirectory: mkdtempSync(join(tmpdir(), 'idp-bench-')),
  tableName: process.env.BENCH_TABLE ?? 'idp-bench',
});
announce({
  baseUrl: service.baseUrl,
  tokenUrl: `${service.baseUrl}/oauth2/token`,
  organizationId: service.organizationId,
  client_id: service.clientId,
  client_secret: service.clientSecret,
});
