import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { MiddlewareObj } from '@middy/core';
import { rawDynamoClient, tableName } from '../../store/dynamo.js';
import { keys, TABLE_SCHEMA } from '../../store/keys.js';

/**
 * `Idempotency-Key` on non-GET operations (Powertools idempotency on the service table). The key
 * is scoped to the organization, the caller and the route; a repeat with another body is 422.
 * Without the header the middleware steps aside.
 */
const config = new IdempotencyConfig({
  eventKeyJmesPath:
    'headers."idempotency-key" && [headers."idempotency-key", requestContext.authorizer.jwt.claims.org, requestContext.authorizer.jwt.claims.sub, routeKey, rawPath]',
  payloadValidationJmesPath: 'body',
  expiresAfterSeconds: 24 * 60 * 60,
  throwOnNoIdempotencyKey: false,
});

/** Powertools' composite-key mode puts every record under one static partition key; this puts each
 * record in its own partition (`keys.idempotencyRecord`). */
class PartitionedIdempotencyStore extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const { pk, sk } = keys.idempotencyRecord(idempotencyKey);
    return { [TABLE_SCHEMA.partitionKey]: { S: pk }, [TABLE_SCHEMA.sortKey]: { S: sk } };
  }
}

let middleware: MiddlewareObj | undefined;

/** Built on first use: no SDK client is created while the function initializes. */
const idempotencyMiddleware = (): MiddlewareObj => {
  middleware ??= makeHandlerIdempotent({
    persistenceStore: new PartitionedIdempotencyStore({
      tableName: tableName(),
      keyAttr: TABLE_SCHEMA.partitionKey,
      sortKeyAttr: TABLE_SCHEMA.sortKey,
      expiryAttr: TABLE_SCHEMA.timeToLiveAttribute,
      awsSdkV3Client: rawDynamoClient(),
    }),
    config,
  }) as MiddlewareObj;
  return middleware;
};

export const idempotency = (): MiddlewareObj => ({
  before: (request) => idempotencyMiddleware().before?.(request),
  after: (request) => idempotencyMiddleware().after?.(request),
  onError: (request) => idempotencyMiddleware().onError?.(request),
});
