import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { storeConfig } from '../config.js';

let client: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;

/** Created on first use, not at import, so a cold start does only what the request needs. */
export const rawDynamoClient = (): DynamoDBClient => {
  const { dynamoDbEndpoint } = storeConfig();
  // The endpoint is set only locally (DynamoDB Local); deployed functions use the regional one.
  client ??= new DynamoDBClient(dynamoDbEndpoint ? { endpoint: dynamoDbEndpoint } : {});
  return client;
};

export const db = (): DynamoDBDocumentClient => {
  documentClient ??= DynamoDBDocumentClient.from(rawDynamoClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
};

export const tableName = (): string => storeConfig().tableName;
