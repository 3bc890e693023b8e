/** What a call can end with besides its answer. */

/**
 * RFC 9470: a 401 whose `WWW-Authenticate` challenge says `insufficient_user_authentication` asks
 * the person to sign in again within `max_age` seconds, then retry; undefined for any other.
 */
export const stepUpChallengeOf = (wwwAuthenticate: string | null): { maxAge: number } | undefined => {
  if (!wwwAuthenticate || !/\berror="insufficient_user_authentication"/.test(wwwAuthenticate))
    return undefined;
  // The parameter (a token or a quoted string, RFC 9110 11.2), not the same words inside the
  // quoted description.
  const maxAge = /(?:^Bearer\s+|,\s*)max_age=(?:(\d+)|"(\d+)")\s*(?:,|$)/i.exec(wwwAuthenticate);
  const seconds = maxAge?.[1] ?? maxAge?.[2];
  return seconds === undefined ? undefined : { maxAge: Number(seconds) };
};

/** The service answered with its error shape (status, message, errorDetails, requestId). */
export class IdpApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly errorDetails: readonly { message: string; field?: string; rejectedValue?: unknown }[];
  readonly requestId: string | undefined;
  /** A step-up challenge (RFC 9470): sign the person in again within `maxAge` seconds and retry. */
  readonly stepUp: { maxAge: number } | undefined;

  constructor(status: number, body: unknown, stepUp?: { maxAge: number }) {
    const shape = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    super(typeof shape.message === 'string' ? shape.message : `The service answered ${status}`);
    this.name = 'IdpApiError';
    this.status = status;
    this.error = typeof shape.error === 'string' ? shape.error : '';
    this.errorDetails = Array.isArray(shape.errorDetails) ? shape.errorDetails : [];
    this.requestId = typeof shape.requestId === 'string' ? shape.requestId : undefined;
    this.stepUp = stepUp;
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
