import { config } from '../config.js';
import { emailVerified } from '../domain/email-verification.js';
import { verifiedOwnToken } from './own-tokens.js';
import { standingPerson } from './standing-person.js';

/**
 * OpenID Connect UserInfo (Core 5.3): the bearer access token is one of ours, for a person, still
 * valid, of a sign-in with `openid`, and still standing as introspection sees it (standingPerson);
 * the claims follow the token's scopes.
 */
export const userInfo = async (
  authorization: string | undefined,
  now = Date.now(),
): Promise<
  { claims: Record<string, unknown> } | { error: 'invalid_request' | 'invalid_token' | 'insufficient_scope' }
> => {
  const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!token) return { error: 'invalid_request' };
  // Signature, typ at+jwt, iss, aud and exp are the verifier's (aws-jwt-verify); the rest is ours.
  const claims = await verifiedOwnToken(token, { typ: 'at+jwt', audience: config().audience });
  const valid =
    claims !== undefined &&
    typeof claims.exp === 'number' &&
    claims.exp * 1000 > now &&
    claims.principal_type === 'user' &&
    typeof claims.org === 'string' &&
    typeof claims.sub === 'string';
  if (!valid) return { error: 'invalid_token' };
  const scopes = new Set(String(claims.scope ?? '').split(' '));
  // Core 5.3: an access token of an OpenID Connect sign-in; one narrowed without `openid` (a
  // refresh may narrow it) is an OAuth token, which UserInfo answers nothing (RFC 6750 3.1).
  if (!scopes.has('openid')) return { error: 'insufficient_scope' };
  // What introspection would answer inactive is refused here too: a new password, a deactivated
  // person or a deleted application ends what the token gave.
  const user = await standingPerson({ ...claims, org: claims.org as string, sub: claims.sub as string });
  if (!user) return { error: 'invalid_token' };
  return {
    claims: {
      sub: user.id,
      org: user.organizationId,
      ...(scopes.has('email') ? { email: user.email, email_verified: emailVerified(user) } : {}),
      ...(scopes.has('profile') ? { name: user.name } : {}),
    },
  };
};
