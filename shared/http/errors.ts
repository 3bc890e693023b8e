import { STATUS_CODES } from 'node:http';

export interface ErrorDetail {
  message: string;
  field?: string;
  rejectedValue?: unknown;
}

/** Every failure a handler or middleware reports to the caller is one of these, mapped once. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** A 401's `WWW-Authenticate` challenge, when it says more than that a token is needed. */
    readonly challenge?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get reason(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}

/** A 409 that no uniqueness rule made (other requests changed the same thing): repeating may succeed. */
export class RetryableConflict extends ApiError {}

/** A 409 because the holder has the most it may (HolderLimitReached): SCIM answers it 400 invalidValue. */
export class HolderLimitConflict extends ApiError {}

export const badRequest = (message: string, details: ErrorDetail[] = []) =>
  new ApiError(400, message, details);
/**
 * RFC 6750 3: a 401 says how to authenticate (`Bearer`), and, for a token that was sent but is not
 * (or no longer) valid, `error="invalid_token"` with the reason.
 */
export const unauthorized = (message = 'A valid bearer token is required', tokenRefused = false) =>
  new ApiError(
    401,
    message,
    [],
    tokenRefused
      ? `Bearer error="invalid_token", error_description="${message.replaceAll('"', "'")}"`
      : 'Bearer',
  );
export const forbidden = (message = 'The token does not allow this operation') => new ApiError(403, message);
/**
 * RFC 9470 (OAuth 2.0 Step Up Authentication Challenge): the person's sign-in is older than the
 * operation allows; the client signs them in again within `maxAgeSeconds` (`max_age`) and retries.
 */
export const insufficientUserAuthentication = (message: string, maxAgeSeconds: number) =>
  new ApiError(
    401,
    message,
    [],
    `Bearer error="insufficient_user_authentication", error_description="${message.replaceAll('"', "'")}", max_age=${maxAgeSeconds}`,
  );
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message: string) => new ApiError(413, message);
export const unsupportedMediaType = (message: string) => new ApiError(415, message);
export const unprocessable = (message: string) => new ApiError(422, message);
export const tooManyRequests = () =>
  new ApiError(429, 'The organization is over its request rate limit; retry later');
