import { AuthorizationResponseError, validateAuthResponse } from 'oauth4webapi';
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../../domain/applications.js';
import { emailAddress } from '../../schemas/common.js';
import { upstreamSubject } from '../../schemas/sso-links.js';
import * as z from '../../zod.js';
import { FederationError, federationErrorOf, newDeadline, upstreamFetch } from './upstream-http.js';

/**
 * The relying-party side of federation with an SSO provider's upstream OpenID Connect issuer, on
 * openid-client: discovery, the authorization URL, the code exchange with the ID token's
 * validation (OpenID Connect Core 3.1.3.5 to 3.1.3.7, its signature included) and UserInfo. Added
 * here: the issuer pinned to the configured string, endpoints https (http only for a loopback
 * issuer), caches within DECISIONS.md's bounds, the `azp` and `iat` checks the library leaves
 * out, and an `auth_time` check without its clock tolerance. Nothing the upstream sends is used before it is validated.
 */

export { FederationError, type FederationFailure } from './upstream-http.js';

const DISCOVERY_MAX_AGE_MILLIS = 3_600_000;
/** Clock difference tolerated with the upstream (`exp`, `iat`, `nbf`; `auth_time` has its own, smaller). */
const CLOCK_TOLERANCE_SECONDS = 60;

/** Issuers are https, or http on loopback (schemas/sso.ts); only those may be spoken to over http. */
const isLoopbackIssuer = (issuer: string) => new URL(issuer).protocol === 'http:';

/** An endpoint the issuer names must be https, or http on loopback like the issuer itself. */
const endpoint = (issuer: URL) =>
  z.string().check(
    z.refine((value: string) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return (
        url.protocol === 'https:' ||
        (url.protocol === 'http:' && issuer.protocol === 'http:' && isLoopbackHost(url.hostname))
      );
    }),
  );

/** What IDP needs of a discovery document, beyond what openid-client checks. */
const discoveryDocument = (issuer: string) => {
  const issuerUrl = new URL(issuer);
  return z.object({
    // Exactly the configured string: openid-client would compare URLs (a trailing slash apart),
    // and accept a tenant-templated issuer for Microsoft's multi-tenant endpoints.
    issuer: z.literal(issuer),
    authorization_endpoint: endpoint(issuerUrl),
    token_endpoint: endpoint(issuerUrl),
    jwks_uri: endpoint(issuerUrl),
    userinfo_endpoint: z.optional(endpoint(issuerUrl)),
  });
};

const discovered = new Map<string, { metadata: oidc.ServerMetadata; until: number }>();

/** The issuer's discovery document (OpenID Connect Discovery 1.0 section 4), cached up to an hour. */
export const discover = async (
  issuer: string,
  clientId: string,
  deadline = newDeadline(),
): Promise<oidc.ServerMetadata> => {
  const now = Date.now();
  const cached = discovered.get(issuer);
  if (cached && cached.until > now) return cached.metadata;
  let metadata: oidc.ServerMetadata;
  try {
    const configuration = await oidc.discovery(new URL(issuer), clientId, undefined, undefined, {
      [oidc.customFetch]: upstreamFetch(deadline),
      execute: isLoopbackIssuer(issuer) ? [oidc.allowInsecureRequests] : [],
    });
    metadata = { ...configuration.serverMetadata() };
  } catch (error) {
    throw federationErrorOf(error, 'discovery document');
  }
  const parsed = discoveryDocument(issuer).safeParse(metadata);
  if (!parsed.success) {
    throw new FederationError(
      'invalid-answer',
      `discovery document: ${parsed.error.issues[0]?.path.join('.')}`,
    );
  }
  discovered.set(issuer, { metadata, until: now + DISCOVERY_MAX_AGE_MILLIS });
  return metadata;
};

/**
 * The upstreams' signing keys between sign-ins, per key set URL. openid-client keeps a key set
 * 5 minutes (within DECISIONS.md's hour) and fetches it again for a `kid` it does not know only
 * once the set is a minute old (DECISIONS.md's once a minute). Its cache belongs to one
 * Configuration, and each sign-in has its own (its deadline is in its customFetch), so the set
 * is handed from one to the next here.
 */
const keySets = new Map<string, oidc.ExportedJWKSCache>();

export interface UpstreamClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** One sign-in's relying party: the upstream's metadata, this client, this request's deadline. */
const relyingParty = (
  issuer: string,
  metadata: oidc.ServerMetadata,
  client: Pick<UpstreamClient, 'clientId'> & { clientSecret?: string },
  deadline: number,
) => {
  const configuration = new oidc.Configuration(
    metadata,
    client.clientId,
    { [oidc.clockTolerance]: CLOCK_TOLERANCE_SECONDS },
    client.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(client.clientSecret),
  );
  configuration[oidc.customFetch] = upstreamFetch(deadline, metadata);
  if (isLoopbackIssuer(issuer)) oidc.allowInsecureRequests(configuration);
  // The ID token's signature, checked against the upstream's JWKS: openid-client skips it by
  // default for an ID token from the token endpoint (Core 3.1.3.7 allows relying on TLS).
  oidc.enableNonRepudiationChecks(configuration);
  const keys = metadata.jwks_uri ? keySets.get(metadata.jwks_uri) : undefined;
  if (keys) oidc.setJwksCache(configuration, keys);
  return configuration;
};

/** Keeps the key set a sign-in fetched (or found stale) for the next one. */
const keepKeys = (metadata: oidc.ServerMetadata, configuration: oidc.Configuration) => {
  const keys = oidc.getJwksCache(configuration);
  if (keys && metadata.jwks_uri) keySets.set(metadata.jwks_uri, keys);
};

/** What the authorization request carries beyond the client: PKCE, state, nonce, hints. */
export interface AuthorizationParameters {
  state: string;
  nonce: string;
  codeVerifier: string;
  scope: string;
  loginHint?: string | undefined;
  prompt?: 'login' | undefined;
  /** Seconds (OpenID Connect Core 3.1.2.1). */
  maxAge?: number | undefined;
}

/** Where to send the person: the upstream's authorization endpoint with PKCE S256, state and nonce. */
export const authorizationUrl = async (
  issuer: string,
  client: Pick<UpstreamClient, 'clientId' | 'redirectUri'>,
  parameters: AuthorizationParameters,
  deadline = newDeadline(),
): Promise<URL> => {
  const metadata = await discover(issuer, client.clientId, deadline);
  const codeChallenge = await oidc.calculatePKCECodeChallenge(parameters.codeVerifier);
  try {
    return oidc.buildAuthorizationUrl(relyingParty(issuer, metadata, client, deadline), {
      redirect_uri: client.redirectUri,
      scope: parameters.scope,
      state: parameters.state,
      nonce: parameters.nonce,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      ...(parameters.loginHint ? { login_hint: parameters.loginHint } : {}),
      ...(parameters.prompt ? { prompt: parameters.prompt } : {}),
      ...(parameters.maxAge === undefined ? {} : { max_age: String(parameters.maxAge) }),
    });
  } catch (error) {
    throw federationErrorOf(error, 'authorization endpoint');
  }
};

const identityClaims = z.object({
  sub: upstreamSubject,
  email: z.optional(emailAddress),
  email_verified: z.optional(z.union([z.boolean(), z.literal('true'), z.literal('false')])),
  // Only a person created just in time takes it, cut to a name's length (federated-person.ts): a
  // name too long, or not a string, is no reason to refuse the sign-in; the latter is left out.
  name: z.catch(z.optional(z.string()), undefined),
});

export interface UpstreamIdentity {
  /** The issuer that vouched for the person (its ID token's `iss`, as configured). */
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** The upstream's own `amr` (RFC 8176), when it says. */
  amr: string[];
  /** When the upstream last authenticated the person (`auth_time`, epoch seconds), when it says. */
  authTime: number | undefined;
}

const invalid = (detail: string) => new FederationError('invalid-answer', `ID token: ${detail}`);

/** What openid-client does not check: `azp` whenever present (it does with several audiences), `iat` not ahead. */
const checkClaimsBeyondLibrary = (claims: oidc.IDToken, clientId: string) => {
  if (claims.azp !== undefined && claims.azp !== clientId) throw invalid('azp is not this client');
  if (claims.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) throw invalid('iat in the future');
};

/** The email claims from UserInfo, when the ID token carries none (Core 5.3.2: same `sub`). */
const userInfoClaims = async (
  configuration: oidc.Configuration,
  metadata: oidc.ServerMetadata,
  accessToken: string,
  subject: string,
) => {
  if (!metadata.userinfo_endpoint) return {};
  let answer: oidc.UserInfoResponse;
  try {
    answer = await oidc.fetchUserInfo(configuration, accessToken, subject);
  } catch (error) {
    throw federationErrorOf(error, 'userinfo');
  } finally {
    keepKeys(metadata, configuration);
  }
  const claims = identityClaims.safeParse(answer);
  if (!claims.success) throw new FederationError('invalid-answer', 'userinfo: claims of the wrong type');
  return claims.data;
};

/** What the upstream's redirect back brought, and what this sign-in expects of it. */
export interface UpstreamCallback {
  /** The query the upstream sent to the client's redirect URI (code, state, iss). */
  query: string;
  state: string;
  codeVerifier: string;
  nonce: string;
  /** Seconds the ID token's `auth_time` may be old, when the request asked for a recent sign-in. */
  maxAge?: number | undefined;
  /**
   * The earliest `auth_time` (epoch seconds) then: checked here too, as the library's check
   * allows the clock tolerance on top (earliestAuthTime).
   */
  earliestAuthTime?: number | undefined;
}

/**
 * The code from the upstream's redirect, exchanged and validated: who the upstream says signed
 * in. RFC 9207 (mix-up) is openid-client's: an authorization response that names its issuer must
 * name this one, and one whose issuer promises to name itself must.
 */
export const upstreamIdentity = async (
  issuer: string,
  client: UpstreamClient,
  callback: UpstreamCallback,
  deadline = newDeadline(),
): Promise<UpstreamIdentity> => {
  const metadata = await discover(issuer, client.clientId, deadline);
  const configuration = relyingParty(issuer, metadata, client, deadline);
  // The library sends this URL, query removed, as the exchange's redirect_uri.
  const redirected = new URL(client.redirectUri);
  redirected.search = callback.query;
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(configuration, redirected, {
      pkceCodeVerifier: callback.codeVerifier,
      expectedState: callback.state,
      expectedNonce: callback.nonce,
      idTokenExpected: true,
      ...(callback.maxAge === undefined ? {} : { maxAge: callback.maxAge }),
    });
  } catch (error) {
    throw federationErrorOf(error, 'ID token');
  } finally {
    keepKeys(metadata, configuration);
  }
  const idToken = tokens.claims();
  if (!idToken) throw invalid('missing');
  checkClaimsBeyondLibrary(idToken, client.clientId);
  if (callback.earliestAuthTime !== undefined && (idToken.auth_time ?? 0) < callback.earliestAuthTime)
    throw new FederationError('authentication-too-old', 'ID token: auth_time is older than max_age allows');
  const fromToken = identityClaims.safeParse(idToken);
  if (!fromToken.success) throw invalid('claims of the wrong type');
  const claims =
    fromToken.data.email === undefined
      ? {
          ...fromToken.data,
          // An address and its verification come from the same answer: UserInfo's address is not
          // vouched for by an ID token that named none.
          email_verified: undefined,
          ...(await userInfoClaims(configuration, metadata, tokens.access_token, fromToken.data.sub)),
        }
      : fromToken.data;
  return {
    issuer,
    subject: claims.sub,
    email: claims.email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: claims.name,
    amr:
      z
        .array(z.string().check(z.maxLength(32)))
        .check(z.maxLength(10))
        .safeParse(idToken.amr).data ?? [],
    authTime: idToken.auth_time,
  };
};

/**
 * The `error` of an upstream's error answer (RFC 6749 4.1.2.1), once it passed the checks a
 * success passes (oauth4webapi's): RFC 9207's `iss` (the issuer's, and present when its metadata
 * says it sends one) and the `state`. An error answer naming another issuer is a mix-up attempt,
 * refused like a success would be, not passed on to the application.
 */
export const upstreamErrorOf = (
  metadata: oidc.ServerMetadata,
  clientId: string,
  answer: { query: string; state: string },
): string => {
  try {
    validateAuthResponse(metadata, { client_id: clientId }, new URLSearchParams(answer.query), answer.state);
  } catch (error) {
    if (error instanceof AuthorizationResponseError) return error.error;
    throw federationErrorOf(error, 'authorization response');
  }
  throw new FederationError('invalid-answer', 'authorization response: no error after all');
};
