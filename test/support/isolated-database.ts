import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';

/**
 * Points this test file at its own database inside the shared DynamoDB Local: DynamoDB Local
 * keeps one database per access key id (letters and digits only).
 */
export const useIsolatedDatabase = (): string => {
  const endpoint = inject('dynamoDbEndpoint');
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: `test${randomBytes(8).toString('hex')}`,
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    IDP_DYNAMODB_ENDPOINT: endpoint,
    IDP_TABLE_NAME: 'idp',
  });
  return endpoint;
};
