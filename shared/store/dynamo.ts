import { storeConfig } from '../config.js';
import { DynamoDbClient } from './dynamodb-client.js';

let client: DynamoDbClient | undefined;

/** Created on first use, not at import, so a cold start does only what the request needs. */
export const db = (): DynamoDbClient => {
  // The endpoint is set only locally (DynamoDB Local); deployed functions use the regional one.
  client ??= new DynamoDbClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    endpoint: storeConfig().dynamoDbEndpoint,
  });
  return client;
};

export const tableName = (): string => storeConfig().tableName;
