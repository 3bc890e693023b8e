import { type RunningApiGateway, startApiGateway } from './api-gateway.js';
import { type BootstrapResult, bootstrapLocal } from './bootstrap.js';
import { ensureTable } from './table.js';

export interface LocalServiceOptions {
  port: number;
  dynamoDbEndpoint: string;
  dataDirectory: string;
  tableName?: string;
  adminClientId?: string;
  adminClientSecret?: string;
}

export interface LocalService extends BootstrapResult {
  baseUrl: string;
  gateway: RunningApiGateway;
  close(): Promise<void>;
}

/**
 * Configures the in-process functions the way the stack configures the deployed ones (through
 * environment variables), prepares the table and its data, and serves the API.
 */
export const startLocalService = async (options: LocalServiceOptions): Promise<LocalService> => {
  Object.assign(process.env, {
    IDP_TABLE_NAME: options.tableName ?? 'idp',
    IDP_DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
    IDP_DATA_DIR: options.dataDirectory,
    IDP_SECRET_STORE: 'file',
    IDP_OUTBOX_FILE: `${options.dataDirectory}/outbox.jsonl`,
    IDP_AUDIENCE: process.env.IDP_AUDIENCE ?? 'idp',
  });
  // Local runs never talk to AWS: pin the SDK to placeholder credentials and a fixed region.
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';

  const { rawDynamoClient, tableName } = await import('../../shared/store/dynamo.js');
  await ensureTable(rawDynamoClient(), tableName());
  const admin = await bootstrapLocal({
    ...(options.adminClientId ? { clientId: options.adminClientId } : {}),
    ...(options.adminClientSecret ? { clientSecret: options.adminClientSecret } : {}),
  });

  let issuer = '';
  const gateway = await startApiGateway({
    port: options.port,
    issuer: () => issuer,
    audience: process.env.IDP_AUDIENCE ?? 'idp',
  });
  issuer = process.env.IDP_ISSUER ?? gateway.url;
  process.env.IDP_ISSUER = issuer;
  return { ...admin, baseUrl: gateway.url, gateway, close: () => gateway.close() };
};
