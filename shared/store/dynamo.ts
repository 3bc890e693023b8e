import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import { type StoreConfig, storeConfig } from '../config.js';

let clients: { settings: StoreConfig; raw: DynamoDBClient; document: DynamoDBDocumentClient } | undefined;

export const SCAN_REFUSED = 'The service never scans the table (one Query per page): a Scan is a defect';

/**
 * No operation of the service scans: deployed, IAM refuses a Scan; everywhere (the local server,
 * the CLI, every test) the client refuses one before sending it, so a Scan fails where it is made.
 */
const refuseScans = (client: DynamoDBClient) =>
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ScanCommand') throw new Error(SCAN_REFUSED);
      return next(args);
    },
    { step: 'initialize', name: 'refuseScans' },
  );

const current = () => {
  const settings = storeConfig();
  // A deployed function reads its settings once; the operator CLI and tests re-point the store
  // (`reloadConfig()`), and the clients follow.
  if (clients?.settings !== settings) {
    const { dynamoDbEndpoint } = settings;
    const raw = new DynamoDBClient({
      ...(dynamoDbEndpoint ? { endpoint: dynamoDbEndpoint } : {}),
      requestHandler: awsRequestHandler(),
    });
    refuseScans(raw);
    clients = {
      settings,
      raw,
      document: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    };
  }
  return clients;
};

/**
 * The process's one DynamoDB client, created on first use rather than at import, so a cold start
 * does only what its first request needs. Region and credentials come from the SDK's default
 * chain; the endpoint is set only locally (DynamoDB Local), through `storeConfig()`.
 */
export const dynamoDbClient = (): DynamoDBClient => current().raw;

/** The document client over it: items in and out as plain objects, undefined attributes left out. */
export const db = (): DynamoDBDocumentClient => current().document;

export const tableName = (): string => storeConfig().tableName;
