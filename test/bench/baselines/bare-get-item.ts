import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/** The bundle baseline: a Lambda handler doing one DocumentClient GetItem and nothing else. */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pathParameters?: Record<string, string> }) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pathParameters?.id, sk: 'ITEM' } }),
  );
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
};
