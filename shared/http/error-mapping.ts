import {
  ChangedMeanwhile,
  Conflict,
  type DomainError,
  HolderLimitReached,
  InvalidReference,
  LimitExceeded,
  NotFound,
  PreconditionFailed,
} from '../domain/errors.js';
import { ERROR_TEXT_LENGTH, MAX_ERROR_DETAILS } from '../domain/limits.js';
import type { ErrorBody } from '../schemas/error-body.js';
import { asOneLine } from '../schemas/text.js';
import { ApiError, HolderLimitConflict, RetryableConflict } from './errors.js';

/** The status of each refusal of the domain and the store. */
const DOMAIN_STATUSES = new Map<abstract new (...args: never[]) => DomainError, number>([
  [NotFound, 404],
  [Conflict, 409],
  [InvalidReference, 400],
  [PreconditionFailed, 400],
  [LimitExceeded, 413],
]);

/** Fields of a refusal are named relative to the input; the API names them in the body. */
const domainApiError = (error: DomainError, status: number) =>
  new ApiError(
    status,
    error.message,
    error.fields.map(({ field, message, rejectedValue }) => ({
      message,
      field: field === '' ? 'body' : `body.${field}`,
      ...(rejectedValue === undefined ? {} : { rejectedValue }),
    })),
  );

/** Turns anything thrown into the typed error the caller sees. Unknown faults become a bare 500. */
export const toApiError = (error: unknown): ApiError => {
  if (error instanceof ApiError) return error;
  if (error instanceof ChangedMeanwhile) return new RetryableConflict(409, error.message);
  if (error instanceof HolderLimitReached) return new HolderLimitConflict(409, error.message);
  for (const [kind, status] of DOMAIN_STATUSES) {
    if (error instanceof kind) return domainApiError(error, status);
  }
  return new ApiError(500, 'Internal server error');
};

/** One line of at most ERROR_TEXT_LENGTH characters, as the error shape promises. */
const errorText = (text: string): string => asOneLine(text).slice(0, ERROR_TEXT_LENGTH);

export const errorBody = (error: ApiError, requestId: string, now = Date.now()): ErrorBody => {
  const details = error.details.slice(0, MAX_ERROR_DETAILS).map(({ message, field, rejectedValue }) => ({
    message: errorText(message),
    ...(field === undefined ? {} : { field: errorText(field) }),
    ...(rejectedValue === undefined ? {} : { rejectedValue }),
  }));
  const leftOut = error.details.length - details.length;
  return {
    status: error.status,
    error: error.reason,
    message: errorText(
      leftOut > 0 ? `${error.message} (${leftOut} more problems not listed)` : error.message,
    ),
    ...(details.length > 0 ? { errorDetails: details } : {}),
    requestId,
    timestamp: now,
  };
};
