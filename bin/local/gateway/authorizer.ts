import {
  JwtExpiredError,
  JwtInvalidAudienceError,
  JwtInvalidIssuerError,
  JwtInvalidSignatureAlgorithmError,
  JwtInvalidSignatureError,
  JwtNotBeforeError,
  JwtParseError,
  JwtWithoutValidKidError,
  KidNotFoundInJwksError,
} from 'aws-jwt-verify/error';
import type { APIGatewayEventRequestContextJWTAuthorizer } from 'aws-lambda';

/**
 * The `www-authenticate` header of API Gateway's JWT authorizer refusal (its body is always
 * `{"message":"Unauthorized"}`). A missing token gets a bare challenge (RFC 6750 section 3.1);
 * otherwise the description comes from a fixed vocabulary, never from a parser's own message,
 * so nothing about the verifier's internals reaches the caller.
 */
export const bearerChallenge = (token: string | undefined, failure?: unknown): string => {
  if (!token) return 'Bearer';
  return `Bearer scope="" error="invalid_token" error_description="${describeFailure(token, failure)}"`;
};

const describeFailure = (token: string, failure: unknown): string => {
  if (token.split('.').length !== 3) return 'token contains an invalid number of segments';
  if (failure instanceof JwtParseError) return 'token is malformed';
  if (failure instanceof JwtExpiredError) return 'token is expired';
  if (failure instanceof JwtNotBeforeError) return 'token is not valid yet';
  if (failure instanceof JwtInvalidIssuerError) return 'the token does not have a valid issuer';
  if (failure instanceof JwtInvalidAudienceError) return 'the token does not have a valid audience';
  if (failure instanceof JwtInvalidSignatureAlgorithmError) return 'signing method is invalid';
  if (
    failure instanceof JwtInvalidSignatureError ||
    failure instanceof JwtWithoutValidKidError ||
    failure instanceof KidNotFoundInJwksError
  ) {
    return 'signature is invalid';
  }
  return 'token is invalid';
};

/** What API Gateway's JWT authorizer hands the function for a verified token's claims. */
export const authorizerContext = (
  claims: Record<string, unknown>,
): APIGatewayEventRequestContextJWTAuthorizer => ({
  principalId: '',
  integrationLatency: 0,
  jwt: {
    claims: Object.fromEntries(Object.entries(claims).map(([name, value]) => [name, flattenClaim(value)])),
    scopes: typeof claims.scope === 'string' ? claims.scope.split(' ') : [],
  },
});

/** API Gateway hands non-string claims to the function flattened into strings. */
export const flattenClaim = (value: unknown): string | number | boolean => {
  if (Array.isArray(value)) return `[${value.map(flattenClaim).join(' ')}]`;
  if (value !== null && typeof value === 'object') {
    return `map[${Object.entries(value)
      .map(([key, inner]) => `${key}:${flattenClaim(inner)}`)
      .join(' ')}]`;
  }
  return String(value);
};
