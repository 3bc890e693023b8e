import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

let client: DynamoDBClient | undefined;
let documentClient: DynamoDBDocumentClient | undefined;

/** Created on first use, not at import, so a cold start does only what the request needs. */
export const rawDynamoClient = (): DynamoDBClient => {
  client ??= new DynamoDBClient({
    // Set only locally (DynamoDB Local); deployed functions use the regional endpoint.
    ...(process.env.IDP_DYNAMODB_ENDPOINT ? { endpoint: process.env.IDP_DYNAMODB_ENDPOINT } : {}),
  });
  return client;
};

export const db = (): DynamoDBDocumentClient => {
  documentClient ??= DynamoDBDocumentClient.from(rawDynamoClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
};

export const tableName = (): string => process.env.IDP_TABLE_NAME ?? 'idp';

export const isConditionalCheckFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';
