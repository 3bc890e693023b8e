import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { countMetric } from '../../observability/metrics.js';
import { rawDynamoClient, tableName } from '../../store/dynamo.js';
import { keys, TABLE_SCHEMA } from '../../store/keys.js';

/**
 * `Idempotency-Key` on non-GET operations (Powertools idempotency on the service table). The key
 * is scoped to the organization, the caller, the route and the path; a repeat with another body
 * is 422, a repeat while the first still runs is 409, a repeat after it finished replays it.
 * Without the header the middleware steps aside.
 */
const settings = {
  eventKeyJmesPath:
    'headers."idempotency-key" && [headers."idempotency-key", requestContext.authorizer.jwt.claims.org, requestContext.authorizer.jwt.claims.sub, routeKey, rawPath]',
  payloadValidationJmesPath: 'body',
  expiresAfterSeconds: 24 * 60 * 60,
  throwOnNoIdempotencyKey: false,
};

/** Powertools' composite-key mode puts every record under one static partition key; this puts each
 * record in its own partition (`keys.idempotencyRecord`). */
class PartitionedIdempotencyStore extends DynamoDBPersistenceLayer {
  protected override getKey(idempotencyKey: string): Record<string, AttributeValue> {
    const { pk, sk } = keys.idempotencyRecord(idempotencyKey);
    return { [TABLE_SCHEMA.partitionKey]: { S: pk }, [TABLE_SCHEMA.sortKey]: { S: sk } };
  }
}

let persistenceStore: PartitionedIdempotencyStore | undefined;

/** Built on first use: no SDK client is created while the function initializes. Its settings are
 * the same for every request, so one store per instance holds no per-request state. */
const store = () => {
  persistenceStore ??= new PartitionedIdempotencyStore({
    tableName: tableName(),
    keyAttr: TABLE_SCHEMA.partitionKey,
    sortKeyAttr: TABLE_SCHEMA.sortKey,
    expiryAttr: TABLE_SCHEMA.timeToLiveAttribute,
    awsSdkV3Client: rawDynamoClient(),
  });
  return persistenceStore;
};

/**
 * A response that carries a secret (a client secret) is recorded without it; a replay asks the
 * secret's owner for it again. `reread` answers the secret for the recorded body, or throws when
 * the recorded response can no longer be reproduced.
 */
export interface RecordedSecret {
  readonly field: string;
  readonly reread: (recordedBody: Record<string, unknown>, request: Request) => Promise<string>;
}

const withoutSecret = (response: APIGatewayProxyStructuredResultV2, field: string) => {
  const body = JSON.parse(response.body ?? '{}') as Record<string, unknown>;
  delete body[field];
  return { ...response, body: JSON.stringify(body) };
};

const withSecretAgain = async (
  response: APIGatewayProxyStructuredResultV2,
  secret: RecordedSecret,
  request: Request,
) => {
  const body = JSON.parse(response.body ?? '{}') as Record<string, unknown>;
  return {
    ...response,
    body: JSON.stringify({ ...body, [secret.field]: await secret.reread(body, request) }),
  };
};

/**
 * Powertools' middleware with two guarantees it does not give by itself:
 * - per-request state only: each request gets its own configuration and handler (the local server
 *   runs concurrent requests in one process; Lambda never does), and
 * - only the request that wrote the in-progress record may delete it: a repeat refused with 409
 *   or 422 must not free the key for a third request while the first still runs.
 */
export const idempotency = (recordedSecret?: RecordedSecret): MiddlewareObj => {
  const perRequest = new WeakMap<Request, { middleware: MiddlewareObj; ownsRecord: boolean }>();
  return {
    before: async (request) => {
      const config = new IdempotencyConfig(settings);
      const middleware = makeHandlerIdempotent({ persistenceStore: store(), config }) as MiddlewareObj;
      const state = { middleware, ownsRecord: false };
      perRequest.set(request, state);
      const replay = (await middleware.before?.(request)) as APIGatewayProxyStructuredResultV2 | undefined;
      if (replay !== undefined) {
        countMetric('IdempotentReplays');
        return recordedSecret ? withSecretAgain(replay, recordedSecret, request) : replay;
      }
      // Without the header Powertools stepped aside; with it, it wrote this request's in-progress record.
      state.ownsRecord = hasIdempotencyKey(request);
    },
    after: async (request) => {
      const state = perRequest.get(request);
      if (!state?.ownsRecord) return;
      const response = request.response as APIGatewayProxyStructuredResultV2;
      await state.middleware.after?.(
        recordedSecret ? { ...request, response: withoutSecret(response, recordedSecret.field) } : request,
      );
    },
    onError: async (request) => {
      const state = perRequest.get(request);
      if (state?.ownsRecord) await state.middleware.onError?.(request);
    },
  };
};

const hasIdempotencyKey = (request: Request): boolean =>
  Boolean((request.event as { headers?: Record<string, string | undefined> }).headers?.['idempotency-key']);
