import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import { type StoreConfig, storeConfig } from '../config.js';

let clients: { settings: StoreConfig; raw: DynamoDBClient; document: DynamoDBDocumentClient } | undefined;

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
