/**
 * What a SCIM bearer secret looks like: `idp_scim_` and 32 random bytes in base64url (43
 * characters). The prefix tells people and secret scanners what a leaked value is; the shape lets
 * the SCIM endpoint refuse anything else without a table read.
 */
export const SCIM_TOKEN_PREFIX = 'idp_scim_';

const SCIM_TOKEN_SHAPE = /^idp_scim_[A-Za-z0-9_-]{43}$/;

/** Whether `value` can be a SCIM bearer secret the service issued (not whether one is live). */
export const isScimTokenValue = (value: unknown): value is string =>
  typeof value === 'string' && SCIM_TOKEN_SHAPE.test(value);
