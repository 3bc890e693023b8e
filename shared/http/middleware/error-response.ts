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

/**
 * Maps whatever was thrown to the one error shape, once, at the end of every chain. A read whose
 * admission (running beside it) is refused answers that refusal, whatever else went wrong.
 */
export const errorResponse = (): MiddlewareObj => ({
  onError: async (request) => {
    const refusal = await requestState(request).admission?.then(
      () => undefined,
      (error: unknown) => error,
    );
    const apiError = toApiError(refusal ?? request.error);
    const { requestId } = requestState(request);
    if (apiError.status >= 500)
      logger.error('request failed', { requestId, error: (refusal ?? request.error) as Error });
    request.response = jsonResponse(apiError.status, errorBody(apiError, requestId ?? 'unknown'));
  },
});
