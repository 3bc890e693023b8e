/** What a call can end with besides its answer. */

/** The service answered with its error shape (status, message, errorDetails, requestId). */
export class IdpApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly errorDetails: readonly { message: string; field?: string; rejectedValue?: unknown }[];
  readonly requestId: string | undefined;

  constructor(status: number, body: unknown) {
    const shape = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    super(typeof shape.message === 'string' ? shape.message : `The service answered ${status}`);
    this.name = 'IdpApiError';
    this.status = status;
    this.error = typeof shape.error === 'string' ? shape.error : '';
    this.errorDetails = Array.isArray(shape.errorDetails) ? shape.errorDetails : [];
    this.requestId = typeof shape.requestId === 'string' ? shape.requestId : undefined;
  }
}

/** The token endpoint refused (RFC 6749 5.2: `error`, `error_description`). */
export class IdpOAuthError extends Error {
  readonly status: number;
  readonly error: string;

  constructor(status: number, body: unknown) {
    const shape = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    super(
      typeof shape.error_description === 'string'
        ? shape.error_description
        : `Token request refused (${status})`,
    );
    this.name = 'IdpOAuthError';
    this.status = status;
    this.error = typeof shape.error === 'string' ? shape.error : 'invalid_request';
  }
}

/** No answer after every retry the policy allows (network failures, time-outs). */
export class IdpNetworkError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'IdpNetworkError';
  }
}
