import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { errorBody, toApiError } from '../error-mapping.js';
import { logger } from '../logger.js';
import { requestState } from '../request-state.js';

export const jsonResponse = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** How hosted pages answer an error: a page in their own look, not JSON. */
export type ErrorPage = (status: number, message: string) => APIGatewayProxyStructuredResultV2;

/**
 * Maps whatever was thrown to the one error shape, once, at the end of every chain (for hosted
 * pages, to their error page). A read whose admission (running beside it) is refused answers
 * that refusal, whatever else went wrong.
 */
export const errorResponse = (errorPage?: ErrorPage): MiddlewareObj => ({
  onError: async (request) => {
    const refusal = await requestState(request).admission?.then(
      () => undefined,
      (error: unknown) => error,
    );
    const apiError = toApiError(refusal ?? request.error);
    const { requestId } = requestState(request);
    if (apiError.status >= 500)
      logger.error('request failed', { requestId, error: (refusal ?? request.error) as Error });
    const body = errorBody(apiError, requestId ?? 'unknown');
    request.response = errorPage
      ? errorPage(apiError.status, `${body.message} (request ${body.requestId})`)
      : jsonResponse(apiError.status, body);
  },
});
