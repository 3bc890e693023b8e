import { config } from '../config.js';
import { signInStillStands } from '../domain/authorization.js';
import { type ApiClientRecord, getApiClient } from '../store/api-client-repository.js';
import { providerWithdrawn, routedAround, signInOptions } from '../store/sign-in-providers.js';
import { liveRefreshToken } from '../store/sign-in-state.js';
import { getUser } from '../store/user-repository.js';
import { verifiedOwnToken } from './own-tokens.js';
import { standingPerson } from './standing-person.js';

/** RFC 7662 2.2: a token that is not active for the caller says nothing more. */
const INACTIVE = { active: false } as const;

type Answer = Record<string, unknown> & { active: boolean };

/**
 * An access token of this service, as a resource server of its organization sees it now: signed
 * by the service, for its API, not expired; its client still registered; its person still ACTIVE
 * with no new password since it was issued. Stricter than the token alone, which lives out its
 * lifetime: that is what introspection is asked for. Who may ask (RFC 7662 section 4): an API
 * client of the organization (a resource server) about any of its tokens; an application about
 * the tokens issued to it alone, not about other applications' users.
 */
const accessTokenAnswer = async (caller: ApiClientRecord, token: string): Promise<Answer> => {
  const claims = await verifiedOwnToken(token, { typ: 'at+jwt', audience: config().audience });
  // Another organization's token is as unknown to the caller as a forged one.
  if (!claims || claims.org !== caller.organizationId || typeof claims.sub !== 'string') return INACTIVE;
  const person = claims.principal_type === 'user';
  // A person's token names the application it was issued to; a client's token is the client's own.
  const clientId = person ? claims.client_id : claims.sub;
  if (caller.flowType === 'authorization_code' && clientId !== caller.id) return INACTIVE;
  const stands = person
    ? (await standingPerson({ ...claims, org: caller.organizationId, sub: claims.sub })) !== undefined
    : (await getApiClient(claims.sub))?.organizationId === caller.organizationId;
  if (!stands) return INACTIVE;
  return {
    active: true,
    token_type: 'Bearer',
    scope: claims.scope,
    ...(clientId === undefined ? {} : { client_id: clientId }),
    sub: claims.sub,
    aud: claims.aud,
    iss: claims.iss,
    exp: claims.exp,
    iat: claims.iat,
    jti: claims.jti,
    org: claims.org,
  };
};

/** A refresh token: only the client it was issued to may ask, as only it may use or revoke it. */
const refreshTokenAnswer = async (caller: ApiClientRecord, token: string, now: number): Promise<Answer> => {
  const grant = await liveRefreshToken(token, caller.id, now);
  if (!grant) return INACTIVE;
  const [user, providers] = await Promise.all([
    getUser(grant.organizationId, grant.userId, true),
    signInOptions(grant.organizationId),
  ]);
  // Inactive whenever the refresh grant would refuse it: also for a sign-in the SSO provider now
  // serving the person's domain did not make, or one whose provider no longer serves the organization.
  if (
    !signInStillStands(user, grant.authTime) ||
    routedAround(providers, user.email, grant.provider) ||
    providerWithdrawn(providers, grant)
  )
    return INACTIVE;
  return {
    active: true,
    scope: grant.scope,
    client_id: grant.clientId,
    sub: grant.userId,
    iss: config().publicOrigin,
    exp: grant.expiresAt,
    org: grant.organizationId,
  };
};

/**
 * Token introspection (RFC 7662) for an authenticated client. The service's access tokens are
 * JWTs and its refresh tokens opaque values without a dot, so the token tells its own kind and
 * `token_type_hint` is not needed (section 2.1 makes it an optimisation).
 */
export const introspect = (caller: ApiClientRecord, token: string, now = Date.now()): Promise<Answer> =>
  token.includes('.') ? accessTokenAnswer(caller, token) : refreshTokenAnswer(caller, token, now);
