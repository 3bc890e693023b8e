import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { countMetric } from '../../observability/metrics.js';
import { badRequest, RetryableConflict, unprocessable } from '../errors.js';
import { IDEMPOTENCY_KEY_PATTERN, MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency-key.js';
import { logger } from '../logger.js';

/**
 * `Idempotency-Key` on writes, through Powertools Idempotency: one execution per (key,
 * organization, caller, route, path), whatever the concurrency. The first request takes the key's
 * record with a conditional write; a repeat while it runs is 409, a repeat after it finished
 * replays its response, a repeat with another body (compared with object keys in order) is 422. A
 * failed request frees the key, so a retry runs again. Without the header it steps aside.
 *
 * Two things are added around Powertools' middleware: only the request that took the record may
 * free it (Powertools' `onError` would also delete the record when it is the repeat that was
 * refused, freeing a running or finished request's key for a third execution), and a response's
 * secret is never recorded (a replay asks its owner for it again).
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

type PowertoolsMiddleware = ReturnType<typeof import('./powertools-idempotency.js').powertoolsIdempotency>;

const POWERTOOLS = Symbol('powertools idempotency of this request');
const HOLDS_RECORD = Symbol('this request took the record');

type Internal = Record<symbol, unknown>;
const internalOf = (request: Request) => request.internal as unknown as Internal;

const parsedBody = (response: APIGatewayProxyStructuredResultV2) =>
  JSON.parse(response.body ?? '{}') as Record<string, unknown>;

const withoutSecret = (response: APIGatewayProxyStructuredResultV2, field: string) => {
  const body = parsedBody(response);
  delete body[field];
  return { ...response, body: JSON.stringify(body) };
};

const withSecretAgain = async (
  response: APIGatewayProxyStructuredResultV2,
  secret: RecordedSecret,
  request: Request,
) => {
  const body = parsedBody(response);
  return {
    ...response,
    body: JSON.stringify({ ...body, [secret.field]: await secret.reread(body, request) }),
  };
};

export const idempotency = (recordedSecret?: RecordedSecret): MiddlewareObj => ({
  before: async (request) => {
    const key = (request.event as APIGatewayProxyEventV2).headers['idempotency-key'];
    if (key === undefined) return undefined;
    if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw badRequest(
        `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (no spaces)`,
      );
    }
    const { powertoolsIdempotency, IdempotencyValidationError, IdempotencyAlreadyInProgressError } =
      await import('./powertools-idempotency.js');
    const powertools = powertoolsIdempotency();
    internalOf(request)[POWERTOOLS] = powertools;
    let replay: APIGatewayProxyStructuredResultV2 | undefined;
    try {
      replay = (await powertools.before?.(request as never)) as APIGatewayProxyStructuredResultV2 | undefined;
    } catch (error) {
      if (error instanceof IdempotencyValidationError)
        throw unprocessable('Idempotency-Key was already used with a different request body');
      if (error instanceof IdempotencyAlreadyInProgressError)
        throw new RetryableConflict(409, 'A request with this Idempotency-Key is still in progress');
      throw error;
    }
    if (replay === undefined) {
      internalOf(request)[HOLDS_RECORD] = true;
      return undefined;
    }
    countMetric('IdempotentReplays');
    return recordedSecret ? withSecretAgain(replay, recordedSecret, request) : replay;
  },
  after: async (request) => {
    if (!internalOf(request)[HOLDS_RECORD]) return;
    const powertools = internalOf(request)[POWERTOOLS] as PowertoolsMiddleware;
    const response = request.response as APIGatewayProxyStructuredResultV2;
    // Powertools records what `request.response` holds when its `after` runs.
    request.response = recordedSecret ? withoutSecret(response, recordedSecret.field) : response;
    try {
      await powertools.after?.(request as never);
    } catch (error) {
      // The write happened; only its replay is lost (a repeat is refused until the record's
      // in-progress time runs out, then runs again).
      logger.warn('an Idempotency-Key record could not be completed', {
        requestId: (request.event as APIGatewayProxyEventV2).requestContext.requestId,
        error: (error as Error).name,
      });
    } finally {
      request.response = response;
    }
  },
  onError: async (request) => {
    if (!internalOf(request)[HOLDS_RECORD]) return;
    const powertools = internalOf(request)[POWERTOOLS] as PowertoolsMiddleware;
    await powertools.onError?.(request as never);
  },
});
