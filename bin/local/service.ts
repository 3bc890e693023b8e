import { type RunningApiGateway, startApiGateway } from './api-gateway.js';
import { followAuditRecords } from './audit-events-file.js';
import { type BootstrapResult, bootstrapLocal } from './bootstrap.js';
import { ensureTable } from './table.js';

export interface LocalServiceOptions {
  port: number;
  dynamoDbEndpoint: string;
  dataDirectory: string;
  tableName?: string;
  adminClientId?: string;
  adminClientSecret?: string;
  /** The public origin, when something in front of the server (a proxy) has another one. */
  issuer?: string;
  /** The time the gateway stamps on requests (`ApiGatewayOptions.clock`); the machine's by default. */
  clock?: () => number;
  /** Appends every new audit record to this file (`npm start`: `<data>/audit-events.jsonl`). */
  auditEventsFile?: string;
  /** More to prepare before the service answers (`npm start`'s sign-in trial). */
  beforeReady?: (service: BootstrapResult & { baseUrl: string }) => Promise<void>;
}

export interface LocalService extends BootstrapResult {
  baseUrl: string;
  gateway: RunningApiGateway;
  close(): Promise<void>;
}

/**
 * Configures the in-process functions the way the stack configures the deployed ones (through
 * environment variables), prepares the table and its data, and serves the API. The gateway
 * listens first, with port 0 the public origin is known only then, and every setting is read
 * after it is; it answers 503 with `Retry-After` until everything is prepared.
 */
export const startLocalService = async (options: LocalServiceOptions): Promise<LocalService> => {
  // Local runs never talk to AWS: pin the SDK to placeholder credentials and a fixed region.
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
  // DynamoDB Local on a busy laptop can pause for longer than DynamoDB ever does.
  process.env.IDP_AWS_CONNECTION_TIMEOUT_MS ??= '10000';
  process.env.IDP_AWS_REQUEST_TIMEOUT_MS ??= '30000';
  // Metrics (CloudWatch embedded metric format) are for CloudWatch, not a developer's terminal.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const { config, reloadConfig } = await import('../../shared/config.js');
  let issuer = '';
  const gateway = await startApiGateway({
    port: options.port,
    issuer: () => issuer,
    audience: () => config().audience,
    // API Gateway's access log, as the stack configures it; at INFO and DEBUG, as `npm start` runs.
    accessLog: () => ['DEBUG', 'INFO'].includes(config().logLevel),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  Object.assign(process.env, {
    IDP_TABLE_NAME: options.tableName ?? 'idp',
    IDP_DYNAMODB_ENDPOINT: options.dynamoDbEndpoint,
    IDP_DATA_DIR: options.dataDirectory,
    IDP_SECRET_STORE: 'file',
    IDP_OUTBOX_FILE: `${options.dataDirectory}/outbox.jsonl`,
    IDP_ISSUER: options.issuer ?? gateway.url,
  });
  reloadConfig();
  issuer = config().publicOrigin;
  try {
    const { dynamoDbClient, tableName } = await import('../../shared/store/dynamo.js');
    await ensureTable(dynamoDbClient(), tableName(), { stream: options.auditEventsFile !== undefined });
    const admin = await bootstrapLocal({
      ...(options.adminClientId ? { clientId: options.adminClientId } : {}),
      ...(options.adminClientSecret ? { clientSecret: options.adminClientSecret } : {}),
    });
    const stopFollowing = options.auditEventsFile
      ? await followAuditRecords({
          endpoint: options.dynamoDbEndpoint,
          tableName: tableName(),
          file: options.auditEventsFile,
        })
      : async () => {};
    await options.beforeReady?.({ ...admin, baseUrl: gateway.url });
    gateway.ready();
    const close = async () => {
      await stopFollowing();
      await gateway.close();
    };
    return { ...admin, baseUrl: gateway.url, gateway, close };
  } catch (error) {
    await gateway.close();
    throw error;
  }
};
