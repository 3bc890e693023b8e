import {
  Conflict,
  type DomainError,
  InvalidReference,
  LimitExceeded,
  NotFound,
  PreconditionFailed,
} from '../domain/errors.js';
import type { ErrorBody } from '../schemas/common.js';
import { ApiError } from './errors.js';

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
  for (const [kind, status] of DOMAIN_STATUSES) {
    if (error instanceof kind) return domainApiError(error, status);
  }
  return new ApiError(500, 'Internal server error');
};

export const errorBody = (error: ApiError, requestId: string, now = Date.now()): ErrorBody => ({
  status: error.status,
  error: error.reason,
  message: error.message,
  ...(error.details.length > 0 ? { errorDetails: error.details } : {}),
  requestId,
  timestamp: now,
});
