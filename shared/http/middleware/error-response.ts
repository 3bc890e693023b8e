import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorBody, toApiError } from '../error-mapping.js';
import { type ApiError, RetryableConflict } from '../errors.js';
import { logger } from '../logger.js';
import { requestState } from '../request-state.js';

/**
 * A JSON answer. Stored nowhere unless `headers` says otherwise (the public key set, discovery):
 * answers hold client secrets, people and audit records, which a browser's cache would keep past
 * sign-out (OWASP ASVS 8.2.1).
 */
export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  body: JSON.stringify(body),
});

/** How hosted pages answer an error: a page in their own look, not JSON. */
export type ErrorPage = (status: number, message: string) => APIGatewayProxyStructuredResultV2;

/** How a kind of route answers an error it maps: the one error shape unless the kind says otherwise. */
export type ErrorRenderer = (error: ApiError, requestId: string) => APIGatewayProxyStructuredResultV2;

const oneErrorShape: ErrorRenderer = (error, requestId) =>
  jsonResponse(error.status, errorBody(error, requestId), {
    ...(error.challenge ? { 'www-authenticate': error.challenge } : {}),
    // Worth repeating in a moment (the typed client does): the organization's next second, or a
    // write that met another's change or its own first attempt still running.
    ...(error.status === 429 || error instanceof RetryableConflict ? { 'retry-after': '1' } : {}),
  });

/** A hosted page's error renderer: its page, naming the request for support. */
export const pageErrors =
  (errorPage: ErrorPage): ErrorRenderer =>
  (error, requestId) => {
    const body = errorBody(error, requestId);
    return errorPage(error.status, `${body.message} (request ${body.requestId})`);
  };

/**
 * Maps whatever was thrown to the one error shape, once, at the end of every chain (hosted pages
 * answer their error page, SCIM routes SCIM's error shape). A read whose admission (running beside
 * it) is refused answers that refusal, whatever else went wrong.
 */
export const errorResponse = (render: ErrorRenderer = oneErrorShape): MiddlewareObj => ({
  onError: async (request) => {
    const refusal = await requestState(request).admission?.then(
      () => undefined,
      (error: unknown) => error,
    );
    const apiError = toApiError(refusal ?? request.error);
    const { requestId } = requestState(request);
    // 501 says what the service does not offer (SCIM's /Me): an answer, not a failure to log.
    if (apiError.status >= 500 && apiError.status !== 501)
      logger.error('request failed', { requestId, error: (refusal ?? request.error) as Error });
    request.response = render(apiError, requestId ?? 'unknown');
  },
});
