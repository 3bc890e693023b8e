import { createHash } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { countMetric } from '../../observability/metrics.js';
import { claimRecord, completeRecord, releaseRecord } from '../../store/idempotency-records.js';
import { ConcurrentChange } from '../../store/writes.js';
import { badRequest, conflict, unprocessable } from '../errors.js';
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency-key.js';
import { logger } from '../logger.js';

/**
 * `Idempotency-Key` on writes: one execution per (key, organization, caller, route, path),
 * whatever the concurrency. The first request takes the key's record with a conditional write;
 * a repeat while it runs is 409, a repeat after it finished replays its response, a repeat with
 * another body is 422. Only the request that holds the record completes or releases it, so a
 * refused repeat never frees the key for a third request. A failed request releases the key: a
 * retry runs again. Without the header the middleware steps aside.
 *
 * Written here rather than taken from Powertools' idempotency utility: that one shares its
 * configuration between concurrent requests, lets a refused repeat delete the running request's
 * record, and with its JMESPath engine added 38 KB to every function that writes.
 */

/**
 * A response that carries a secret (a client secret) is recorded without it; a replay asks the
 * secret's owner for it again. `reread` answers the secret for the recorded body, or throws when
 * the recorded response can no longer be reproduced.
 */
export interface RecordedSecret {
  readonly field: string;
  readonly reread: (recordedBody: Record<string, unknown>, request: Request) => Promise<string>;
}

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The record's key: the header's value scoped to who calls what. */
const recordHash = (event: APIGatewayProxyEventV2WithJWTAuthorizer, key: string) => {
  const claims = event.requestContext.authorizer?.jwt?.claims ?? {};
  return digest(JSON.stringify([key, claims.org, claims.sub, event.routeKey, event.rawPath]));
};

/** JSON with object keys in order, so the same body written another way is the same body. */
const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  ) ?? '';

/** The request body (parsed by then, when it was JSON) a repeat must send again to be replayed. */
const bodyHashOf = (event: APIGatewayProxyEventV2WithJWTAuthorizer) => digest(canonicalJson(event.body));

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

/** What this request holds, kept per request (concurrent requests share the middleware object). */
const held = new WeakMap<Request, { hash: string; holder: string }>();

export const idempotency = (recordedSecret?: RecordedSecret): MiddlewareObj => ({
  before: async (request) => {
    const event = request.event as APIGatewayProxyEventV2WithJWTAuthorizer;
    const key = event.headers['idempotency-key'];
    if (!key) return undefined;
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw badRequest(
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (no spaces)`,
      );
    }
    const hash = recordHash(event, key);
    // Held while the function may run; a request that died frees the key after that.
    const claim = await claimRecord(hash, bodyHashOf(event), request.context.getRemainingTimeInMillis());
    if (claim.kind === 'held') {
      held.set(request, { hash, holder: claim.holder });
      return undefined;
    }
    if (claim.kind === 'other-body')
      throw unprocessable('Idempotency-Key was already used with a different request body');
    if (claim.kind === 'running') throw conflict('A request with this Idempotency-Key is still in progress');
    countMetric('IdempotentReplays');
    const recorded = JSON.parse(claim.response) as APIGatewayProxyStructuredResultV2;
    return recordedSecret ? withSecretAgain(recorded, recordedSecret, request) : recorded;
  },
  after: async (request) => {
    const holding = held.get(request);
    if (!holding) return;
    const response = request.response as APIGatewayProxyStructuredResultV2;
    const kept = recordedSecret ? withoutSecret(response, recordedSecret.field) : response;
    try {
      await completeRecord(holding.hash, holding.holder, JSON.stringify(kept));
    } catch (error) {
      // The write happened; only its replay is lost (a repeat will run again or be refused).
      if (!(error instanceof ConcurrentChange)) throw error;
      logger.warn('an idempotency record was taken over before its request finished', {
        requestId: (request.event as APIGatewayProxyEventV2WithJWTAuthorizer).requestContext.requestId,
      });
    }
  },
  onError: async (request) => {
    const holding = held.get(request);
    if (!holding) return;
    await releaseRecord(holding.hash, holding.holder).catch((error: unknown) => {
      if (!(error instanceof ConcurrentChange)) throw error;
    });
  },
});
