import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
} from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import { idempotencyRecords } from '../../store/idempotency-records.js';

/**
 * What `Idempotency-Key` runs on, loaded by the middleware when a request first carries the
 * header (most requests do not): Powertools Idempotency with its DynamoDB persistence.
 */

const KEY = 'headers."idempotency-key"';
const CLAIMS = 'requestContext.authorizer.jwt.claims';

/** The same for every function, so a record's key does not depend on the deployed function's name. */
export const IDEMPOTENCY_KEY_PREFIX = 'idp';

/** Shared by every route: Powertools keeps one configuration per persistence layer. */
const settings = new IdempotencyConfig({
  // No header, no idempotency (`&&` answers null); with one, the record is the key's per caller and target.
  eventKeyJmesPath: `${KEY} && [${KEY}, ${CLAIMS}.org, ${CLAIMS}.sub, routeKey, rawPath]`,
  // The parsed body by then; Powertools hashes it with object keys sorted.
  payloadValidationJmesPath: 'body',
  expiresAfterSeconds: 24 * 60 * 60,
  hashFunction: 'sha256',
});

/** Powertools' middleware for one request, on the process's persistence layer. */
export const powertoolsIdempotency = () =>
  makeHandlerIdempotent({
    persistenceStore: idempotencyRecords(),
    config: settings,
    keyPrefix: IDEMPOTENCY_KEY_PREFIX,
  });

export { IdempotencyAlreadyInProgressError, IdempotencyValidationError };
