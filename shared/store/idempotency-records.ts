import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { dynamoDbClient, tableName } from './dynamo.js';
import { keys, TABLE_SCHEMA } from './keys.js';

/**
 * Powertools Idempotency's DynamoDB persistence, on the service's table: each record in a
 * partition of its own (`IDEMPOTENCY#<key>`, keys.ts), which the stack's IAM condition scopes the
 * writing functions to; DynamoDB's TTL attribute of the table expires them.
 */
class ServiceTableIdempotencyRecords extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string) {
    return marshall(keys.idempotencyRecord(idempotencyKey));
  }
}

let records: { client: DynamoDBClient; layer: DynamoDBPersistenceLayer } | undefined;

/** One persistence layer per process, on the store's DynamoDB client (and following it). */
export const idempotencyRecords = (): DynamoDBPersistenceLayer => {
  const client = dynamoDbClient();
  if (records?.client !== client) {
    records = {
      client,
      layer: new ServiceTableIdempotencyRecords({
        tableName: tableName(),
        awsSdkV3Client: client,
        keyAttr: 'pk',
        expiryAttr: TABLE_SCHEMA.timeToLiveAttribute,
      }),
    };
  }
  return records.layer;
};
