import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ERROR_TEXT_LENGTH } from '../domain/limits.js';
import { type ApiError, HolderLimitConflict, RetryableConflict } from '../http/errors.js';
import { jsonResponse } from '../http/middleware/error-response.js';
import { asOneLine } from '../schemas/text.js';
import { ScimError, type ScimType } from './errors.js';
import { SCIM_SCHEMAS } from './schema-ids.js';

/** The message itself rather than an attribute: a body that is no object, its `schemas` or `Operations`. */
const MESSAGE_STRUCTURE = /^body(\.(schemas|Operations)(\.|$)|$)/;

/**
 * RFC 7644 section 3.12: `invalidValue` for "a required value was missing, or the value specified
 * was not compatible with the operation or attribute type" (a query parameter or a resource's
 * attribute), `invalidSyntax` for a message whose structure is not a SCIM message's.
 */
const isValueDetail = ({ field }: { field?: string | undefined }) =>
  field !== undefined &&
  (field.startsWith('query.') || (field.startsWith('body.') && !MESSAGE_STRUCTURE.test(field)));

/** The status SCIM answers: a holder's limit is the invalid value it is (400), not a conflict. */
const scimStatusOf = (error: ApiError) => (error instanceof HolderLimitConflict ? 400 : error.status);

/** What a refusal that is not a ScimError means in SCIM's terms, by its status. */
const scimTypeOf = (error: ApiError): ScimType | undefined => {
  if (error instanceof ScimError) return error.scimType;
  // RFC 7644 3.12: `uniqueness` says a value is taken; a request that lost a race to others took
  // nothing, and a directory that read it so would look for a duplicate that is not there.
  if (error instanceof RetryableConflict) return undefined;
  // A member in the most groups one may be in is an invalid member, whether the check before the
  // writes found it so or a join that another request's join overtook (docs/scim.md).
  if (error instanceof HolderLimitConflict) return 'invalidValue';
  if (error.status === 409) return 'uniqueness';
  if (error.status !== 400) return undefined;
  return error.details.length > 0 && error.details.every(isValueDetail) ? 'invalidValue' : 'invalidSyntax';
};

/** The first detail, named by its field, says more than the summary of a refusal. */
const detailOf = (error: ApiError): string => {
  const [first] = error.details;
  const text = first
    ? `${error.message}: ${first.field ? `${first.field}: ` : ''}${first.message}`
    : error.message;
  return asOneLine(text).slice(0, ERROR_TEXT_LENGTH);
};

/**
 * An error in SCIM's shape (RFC 7644 section 3.12): `status` as a string, `scimType` where the RFC
 * names one, the reason in `detail`; a 429 says when to retry (both Okta and Entra ID wait for
 * it), a 401 which scheme authenticates.
 */
export const scimErrorResponse = (error: ApiError): APIGatewayProxyStructuredResultV2 => {
  const scimType = scimTypeOf(error);
  const status = scimStatusOf(error);
  return jsonResponse(
    status,
    {
      schemas: [SCIM_SCHEMAS.error],
      status: String(status),
      ...(scimType ? { scimType } : {}),
      detail: detailOf(error),
    },
    {
      'content-type': 'application/scim+json',
      ...(status === 429 ? { 'retry-after': '1' } : {}),
      ...(status === 401 ? { 'www-authenticate': 'Bearer realm="scim"' } : {}),
    },
  );
};
