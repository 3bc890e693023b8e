import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, inject } from 'vitest';
import { ensureTable } from '../../bin/local/table.js';
import { reloadConfig } from '../../shared/config.js';

/**
 * Points this test file at its own database inside the shared DynamoDB Local: DynamoDB Local
 * keeps one database per access key id (letters and digits only).
 */
export const isolateDatabase = (): string => {
  const endpoint = inject('dynamoDbEndpoint');
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: `test${randomBytes(8).toString('hex')}`,
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    IDP_DYNAMODB_ENDPOINT: endpoint,
    IDP_TABLE_NAME: 'idp',
  });
  // The store follows (shared/config.ts, perStoreSettings), even where something read the settings before.
  reloadConfig();
  return endpoint;
};

/** For tests of the store modules without a service: this file's own database with the table. */
export const useDatabase = (): void => {
  beforeAll(async () => {
    await ensureTable(new DynamoDBClient({ endpoint: isolateDatabase() }), 'idp');
  });
};
