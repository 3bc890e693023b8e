import { randomUUID } from 'node:crypto';
import { config } from '../config.js';
import { isPkceVerifier, SIGN_IN_SCOPES, s256 } from '../domain/authorization.js';
import { emailVerified } from '../domain/email-verification.js';
import { PreconditionFailed } from '../domain/errors.js';
import { type ApiClientRecord, idTokenSigningAlgorithm } from '../store/api-client-repository.js';
import { providerWithdrawn, routedAround, signInOptions } from '../store/sign-in-providers.js';
import {
  newFamilyId,
  redeemAuthorizationCode,
  revokeRefreshFamily,
  rotateRefreshToken,
  startRefreshFamily,
} from '../store/sign-in-state.js';
import { signJws } from './compact-jwt.js';
import { OAuthError } from './oauth-error.js';
import { currentSigningKey } from './signing-keys.js';
import { signAccessToken } from './token-service.js';
import { activeUserAccess } from './user-tokens.js';

/** What a person's sign-in grants an application: the subject and how it authenticated. */
export interface SignInGrant {
  clientId: string;
  organizationId: string;
  userId: string;
  scope: string;
  /** Epoch ms of the authentication (`auth_time` is its second). */
  authTime: number;
  amr: string[];
  /** The SSO provider (its client id) that signed the person in, for a federated sign-in. */
  provider?: string;
  /** When that provider was bound to the organization (sign-in-providers.ts). */
  providerBoundAt?: number;
  nonce?: string;
}

/** The claims of an ID token (OpenID Connect Core 2), pure. */
export const idTokenClaims = (
  grant: SignInGrant,
  user: { email: string; name: string; verifiedEmail?: string | undefined },
  issuer: string,
  issuedAt: number,
  lifetimeSeconds: number,
) => {
  const scopes = new Set(grant.scope.split(' '));
  return {
    iss: issuer,
    sub: grant.userId,
    aud: grant.clientId,
    azp: grant.clientId,
    iat: issuedAt,
    exp: issuedAt + lifetimeSeconds,
    auth_time: Math.floor(grant.authTime / 1000),
    amr: grant.amr,
    ...(grant.nonce ? { nonce: grant.nonce } : {}),
    org: grant.organizationId,
    ...(scopes.has('email') ? { email: user.email, email_verified: emailVerified(user) } : {}),
    ...(scopes.has('profile') ? { name: user.name } : {}),
    jti: randomUUID(),
  };
};

const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);

/** The application the tokens are for, as registered. */
type TokenAudience = Pick<ApiClientRecord, 'id' | 'idTokenSignedResponseAlg'>;

/** Access token, ID token and the next refresh token of a sign-in (DECISIONS.md lifetimes). */
const tokenResponse = async (
  application: TokenAudience,
  grant: SignInGrant,
  refreshToken: string,
  now: number,
) => {
  const [access, idTokenKey, providers] = await Promise.all([
    activeUserAccess(grant.organizationId, grant.userId),
    currentSigningKey(idTokenSigningAlgorithm(application)),
    signInOptions(grant.organizationId),
  ]);
  // The person was deactivated (or deleted) since signing in: nothing more is issued.
  if (!access) throw invalidGrant('The user can no longer sign in');
  // A password reset ends every earlier sign-in (DECISIONS.md), refresh tokens included; so do a
  // deactivation and a sign-out everywhere.
  if (grant.authTime < (access.user.credentialsChangedAt ?? 0)) {
    throw invalidGrant(
      "The person's sign-ins were ended since this one (a new password, a deactivation or a sign-out everywhere); sign in again",
    );
  }
  // A sign-in the provider now serving the person's domain did not make issues nothing more:
  // offboarding at the provider reaches refresh tokens too.
  const routedTo = routedAround(providers, access.user.email, grant.provider);
  if (routedTo) {
    throw invalidGrant(`This person now signs in through ${routedTo.displayName}; sign in again`);
  }
  // Nor does one whose provider the organization no longer offers (deleted, unbound).
  if (providerWithdrawn(providers, grant)) {
    throw invalidGrant('The SSO provider of this sign-in no longer serves the organization; sign in again');
  }
  const { publicOrigin, signIn } = config();
  const { accessToken, expiresIn } = await signAccessToken(access.subject, grant.scope, now, {
    lifetimeSeconds: signIn.userTokenSeconds,
    clientId: grant.clientId,
    authTime: grant.authTime,
    ...(grant.scope.split(' ').includes('profile') ? { name: access.user.name } : {}),
  });
  const idToken = signJws(
    idTokenKey,
    { typ: 'JWT' },
    idTokenClaims(grant, access.user, publicOrigin, Math.floor(now / 1000), signIn.userTokenSeconds),
  );
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    id_token: idToken,
    refresh_token: refreshToken,
    scope: grant.scope,
  };
};

const refreshLifetimes = () => {
  const { refreshSlidingSeconds, refreshAbsoluteSeconds } = config().signIn;
  return { slidingSeconds: refreshSlidingSeconds, absoluteSeconds: refreshAbsoluteSeconds };
};

/**
 * The authorization code grant (RFC 6749 4.1.3 with PKCE, RFC 7636 4.6): the code is redeemed
 * once, by the client it was issued to, with the redirect URI and the verifier of its challenge.
 * A second redemption revokes the refresh tokens the first one started.
 */
export const exchangeAuthorizationCode = async (
  application: TokenAudience,
  form: URLSearchParams,
  now = Date.now(),
) => {
  const clientId = application.id;
  const code = form.get('code');
  const redirectUri = form.get('redirect_uri');
  const verifier = form.get('code_verifier');
  if (!code || !redirectUri)
    throw new OAuthError(400, 'invalid_request', 'code and redirect_uri are required');
  if (!verifier) throw new OAuthError(400, 'invalid_request', 'code_verifier is required (PKCE)');
  if (!isPkceVerifier(verifier)) {
    throw new OAuthError(400, 'invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  }
  const familyId = newFamilyId();
  const redemption = await redeemAuthorizationCode(
    code,
    { clientId, redirectUri, codeChallenge: s256(verifier) },
    familyId,
    now,
  );
  if (redemption.outcome === 'replayed') {
    await revokeRefreshFamily(redemption.familyId);
    throw invalidGrant('The authorization code was already used; what it issued is revoked');
  }
  if (redemption.outcome === 'invalid') {
    throw invalidGrant('The authorization code is invalid, expired, or was issued for another request');
  }
  const { grant } = redemption;
  const signInGrant: SignInGrant = {
    clientId,
    organizationId: grant.organizationId,
    userId: grant.userId,
    scope: grant.scope,
    authTime: grant.authTime,
    amr: grant.amr,
    ...(grant.provider ? { provider: grant.provider } : {}),
    ...(grant.providerBoundAt !== undefined ? { providerBoundAt: grant.providerBoundAt } : {}),
    ...(grant.nonce ? { nonce: grant.nonce } : {}),
  };
  // Without offline_access the refresh tokens live with the browser session they came from.
  const offline = grant.scope.split(' ').includes('offline_access');
  const refreshToken = await startRefreshFamily(
    familyId,
    signInGrant,
    refreshLifetimes(),
    now,
    offline ? undefined : grant.sessionDigest,
  ).catch((error: unknown) => {
    if (error instanceof PreconditionFailed) throw invalidGrant(error.message);
    throw error;
  });
  // A replay of the code while this exchange was under way revoked what it would issue.
  if (refreshToken === undefined)
    throw invalidGrant('The authorization code was already used; what it issued is revoked');
  return tokenResponse(application, signInGrant, refreshToken, now);
};

/**
 * The refresh token grant (RFC 6749 6): rotated at every use; a rotated token presented again
 * revokes its whole family (OAuth 2.0 Security BCP 4.14.2). The scope cannot grow.
 */
export const refreshSignIn = async (application: TokenAudience, form: URLSearchParams, now = Date.now()) => {
  const presented = form.get('refresh_token');
  if (!presented) throw new OAuthError(400, 'invalid_request', 'refresh_token is required');
  const requested = form.get('scope') || undefined;
  // Each value once: a repeated one adds nothing, and each becomes a condition of the write.
  const scopes = [...new Set(requested?.split(' ') ?? [])];
  // A scope no sign-in is granted is refused at once; the others are checked in the rotation.
  const widened = () => new OAuthError(400, 'invalid_scope', 'A refresh cannot add scopes to the sign-in');
  if (scopes.some((scope) => !(SIGN_IN_SCOPES as readonly string[]).includes(scope))) throw widened();
  const rotation = await rotateRefreshToken(presented, application.id, refreshLifetimes(), now, scopes);
  if (rotation.outcome === 'reused') {
    await revokeRefreshFamily(rotation.familyId);
    throw invalidGrant('The refresh token was already used; every token of this sign-in is revoked');
  }
  if (rotation.outcome === 'widened') throw widened();
  if (rotation.outcome === 'invalid') throw invalidGrant('The refresh token is invalid, expired or revoked');
  const { grant } = rotation;
  const scope = requested === undefined ? grant.scope : scopes.join(' ');
  const response = await tokenResponse(application, { ...grant, scope }, rotation.token, now);
  if (scopes.length === 0 || scopes.includes('openid')) return response;
  // Narrowed to leave `openid` out: an OAuth answer, not an OpenID Connect one (no ID token).
  const { id_token: _idToken, ...oauth } = response;
  return oauth;
};
