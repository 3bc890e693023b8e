import { constants, createPublicKey, type KeyObject } from 'node:crypto';
import * as z from 'zod';
import { ES256, type JwsAlgorithm, jwsHeader, verifiedJws } from '../compact-jwt.js';

/**
 * The relying-party side of federation with an SSO provider's upstream OpenID Connect issuer:
 * its discovery document, the code exchange and the ID token's validation (OpenID Connect Core
 * 3.1.3.5 to 3.1.3.7). Written over `fetch` and node:crypto (../compact-jwt.ts): a relying-party
 * library (openid-client, or jose for the signature alone) would add 18 KB or more to a bundle
 * at its budget, and its own caches beside the ones DECISIONS.md asks for (discovery and keys
 * kept at most an hour, an unknown `kid` refreshing the keys at most once a minute). Nothing the
 * upstream sends is used before it is validated.
 */

const DISCOVERY_MAX_AGE_MILLIS = 3_600_000;
const KEY_REFRESH_MILLIS = 60_000;

const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
const ecdsa = (hash: string): JwsAlgorithm => ({ ...ES256, hash });
/** What upstream ID tokens may be signed with: asymmetric only, never `none` or HMAC (keyed with the client secret). */
export const ID_TOKEN_ALGORITHMS: Record<string, JwsAlgorithm> = {
  RS256: { hash: 'sha256', keyTypes: ['rsa'] },
  RS384: { hash: 'sha384', keyTypes: ['rsa'] },
  RS512: { hash: 'sha512', keyTypes: ['rsa'] },
  PS256: { hash: 'sha256', keyTypes: ['rsa', 'rsa-pss'], options: PSS },
  PS384: { hash: 'sha384', keyTypes: ['rsa', 'rsa-pss'], options: PSS },
  PS512: { hash: 'sha512', keyTypes: ['rsa', 'rsa-pss'], options: PSS },
  ES256,
  ES384: ecdsa('sha384'),
  ES512: ecdsa('sha512'),
  EdDSA: { hash: null, keyTypes: ['ed25519', 'ed448'] },
};
const UPSTREAM_TIMEOUT_MILLIS = 10_000;
/** Clock difference tolerated with the upstream. */
const CLOCK_TOLERANCE_SECONDS = 60;

export type FederationFailure =
  /** Network failure, timeout, or a 5xx answer. */
  | 'unreachable'
  /** The upstream refused IDP's client credentials (invalid_client, 401). */
  | 'client-refused'
  /** Another OAuth error from the upstream (invalid_grant, ...). */
  | 'refused'
  /** The answer did not validate: discovery document, token response, ID token. */
  | 'invalid-answer';

export class FederationError extends Error {
  constructor(
    readonly failure: FederationFailure,
    /** For the log: what went wrong, never a token or secret. */
    readonly detail: string,
  ) {
    super(`${failure}: ${detail}`);
    this.name = 'FederationError';
  }
}

const isLoopback = (url: URL) => ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

/** An endpoint the issuer names must be https, or http on loopback like the issuer itself. */
const endpoint = (issuer: URL) =>
  z.url().refine((value) => {
    const url = new URL(value);
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && issuer.protocol === 'http:' && isLoopback(url))
    );
  });

export interface UpstreamMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string | undefined;
}

const upstreamFetch = async (url: string, init: RequestInit = {}): Promise<Response> => {
  let response: Response;
  try {
    response = await fetch(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MILLIS),
    });
  } catch (error) {
    throw new FederationError('unreachable', `${new URL(url).origin}: ${(error as Error).name}`);
  }
  if (response.status >= 500)
    throw new FederationError('unreachable', `${new URL(url).origin} answered ${response.status}`);
  return response;
};

const jsonOf = async (response: Response, what: string): Promise<unknown> => {
  try {
    return await response.json();
  } catch {
    throw new FederationError('invalid-answer', `${what} is not JSON`);
  }
};

const discoveryCache = new Map<string, { metadata: UpstreamMetadata; until: number }>();
const keySets = new Map<string, { keys: UpstreamKey[]; fetchedAt: number }>();

/** The issuer's discovery document (OpenID Connect Discovery 1.0 section 4), cached up to an hour. */
export const discover = async (issuer: string, now = Date.now()): Promise<UpstreamMetadata> => {
  const cached = discoveryCache.get(issuer);
  if (cached && cached.until > now) return cached.metadata;
  const response = await upstreamFetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new FederationError('unreachable', `discovery answered ${response.status}`);
  const issuerUrl = new URL(issuer);
  const parsed = z
    .object({
      issuer: z.literal(issuer),
      authorization_endpoint: endpoint(issuerUrl),
      token_endpoint: endpoint(issuerUrl),
      jwks_uri: endpoint(issuerUrl),
      userinfo_endpoint: endpoint(issuerUrl).optional(),
    })
    .safeParse(await jsonOf(response, 'the discovery document'));
  if (!parsed.success) {
    throw new FederationError(
      'invalid-answer',
      `discovery document: ${parsed.error.issues[0]?.path.join('.')}`,
    );
  }
  discoveryCache.set(issuer, { metadata: parsed.data, until: now + DISCOVERY_MAX_AGE_MILLIS });
  return parsed.data;
};

interface UpstreamKey {
  kid: string | undefined;
  alg: string | undefined;
  key: KeyObject;
}

const jwkSet = z.object({ keys: z.array(z.record(z.string(), z.unknown())).max(100) });

/** The upstream's signing keys; a key that does not import (or is for encryption) is left out. */
const fetchKeys = async (jwksUri: string): Promise<UpstreamKey[]> => {
  const response = await upstreamFetch(jwksUri, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new FederationError('unreachable', `JWKS answered ${response.status}`);
  const parsed = jwkSet.safeParse(await jsonOf(response, 'the JWKS'));
  if (!parsed.success) throw new FederationError('invalid-answer', 'JWKS: not a key set');
  return parsed.data.keys.flatMap((jwk) => {
    if (jwk.use === 'enc') return [];
    try {
      const key = createPublicKey({ key: jwk as never, format: 'jwk' });
      return [
        {
          kid: typeof jwk.kid === 'string' ? jwk.kid : undefined,
          alg: typeof jwk.alg === 'string' ? jwk.alg : undefined,
          key,
        },
      ];
    } catch {
      return [];
    }
  });
};

/**
 * The key for a token's `kid` and `alg`: from the cached set while it is under an hour old; an
 * unknown `kid` fetches the set again, at most once a minute (the upstream rotated its keys).
 */
const keyFor = async (jwksUri: string, kid: unknown, alg: unknown, now = Date.now()) => {
  const pick = (keys: UpstreamKey[]) => {
    const candidates = keys.filter(
      (key) => (key.alg === undefined || key.alg === alg) && (kid === undefined || key.kid === kid),
    );
    // Without a `kid`, only an unambiguous set will do.
    return kid === undefined && candidates.length !== 1 ? undefined : candidates[0];
  };
  const cached = keySets.get(jwksUri);
  const fresh = cached && now - cached.fetchedAt < DISCOVERY_MAX_AGE_MILLIS;
  const found = fresh ? pick(cached.keys) : undefined;
  if (found || (fresh && now - cached.fetchedAt < KEY_REFRESH_MILLIS)) return found;
  const keys = await fetchKeys(jwksUri);
  keySets.set(jwksUri, { keys, fetchedAt: now });
  return pick(keys);
};

export interface UpstreamClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const tokenResponse = z.object({
  id_token: z.string().min(1).max(16_384),
  access_token: z.string().min(1).max(16_384).optional(),
  token_type: z.string().optional(),
});

/** RFC 6749 2.3.1: both parts form-encoded before Basic encoding. */
const basicCredentials = (client: UpstreamClient) =>
  `Basic ${Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64')}`;

/** Exchanges the code at the upstream's token endpoint (client_secret_basic, PKCE verifier). */
const exchangeCode = async (
  metadata: UpstreamMetadata,
  client: UpstreamClient,
  code: string,
  codeVerifier: string,
) => {
  const response = await upstreamFetch(metadata.token_endpoint, {
    method: 'POST',
    headers: {
      authorization: basicCredentials(client),
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: codeVerifier,
    }),
  });
  const body = await jsonOf(response, 'the token response');
  if (!response.ok) {
    const error =
      z.object({ error: z.string().max(100) }).safeParse(body).data?.error ?? `status ${response.status}`;
    const clientRefused =
      response.status === 401 || error === 'invalid_client' || error === 'unauthorized_client';
    throw new FederationError(
      clientRefused ? 'client-refused' : 'refused',
      `token endpoint: ${error.replace(/[^\w.-]/g, '')}`,
    );
  }
  const parsed = tokenResponse.safeParse(body);
  if (!parsed.success) throw new FederationError('invalid-answer', 'token response without an ID token');
  return parsed.data;
};

const identityClaims = z.object({
  sub: z.string().min(1).max(255),
  email: z.string().max(320).optional(),
  email_verified: z.union([z.boolean(), z.literal('true'), z.literal('false')]).optional(),
  name: z.string().max(500).optional(),
});

export interface UpstreamIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** The upstream's own `amr`, when it says. */
  amr: string[];
}

const invalid = (detail: string) => new FederationError('invalid-answer', `ID token: ${detail}`);

/** OpenID Connect Core 3.1.3.7: signature, then iss, aud (and azp), exp, iat, nbf, nonce. */
const verifiedIdToken = async (
  metadata: UpstreamMetadata,
  clientId: string,
  idToken: string,
  nonce: string,
  now = Date.now(),
): Promise<Record<string, unknown>> => {
  const header = jwsHeader(idToken);
  if (!header) throw invalid('not a compact JWS');
  if (typeof header.alg !== 'string' || !Object.hasOwn(ID_TOKEN_ALGORITHMS, header.alg))
    throw invalid('algorithm not accepted');
  const key = await keyFor(metadata.jwks_uri, header.kid, header.alg, now);
  if (!key) throw invalid('no key of the upstream matches');
  const verified = verifiedJws(idToken, key.key, ID_TOKEN_ALGORITHMS);
  if (!verified) throw invalid('signature does not verify');
  const { payload } = verified;
  const seconds = now / 1000;
  const audiences =
    typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  if (payload.iss !== metadata.issuer) throw invalid('iss is not the issuer');
  if (!audiences.includes(clientId)) throw invalid('aud is not this client');
  // With several audiences, the token must be meant for this client.
  if (audiences.length > 1 && payload.azp !== clientId) throw invalid('azp is not this client');
  if (typeof payload.exp !== 'number' || payload.exp <= seconds - CLOCK_TOLERANCE_SECONDS)
    throw invalid('expired');
  if (typeof payload.iat !== 'number' || payload.iat > seconds + CLOCK_TOLERANCE_SECONDS)
    throw invalid('iat in the future');
  if (
    payload.nbf !== undefined &&
    (typeof payload.nbf !== 'number' || payload.nbf > seconds + CLOCK_TOLERANCE_SECONDS)
  ) {
    throw invalid('not yet valid');
  }
  if (payload.nonce !== nonce) throw invalid('nonce mismatch');
  return payload;
};

/** The email claims from the UserInfo endpoint, when the ID token carries none (Core 5.3.2: same `sub`). */
const userInfoClaims = async (metadata: UpstreamMetadata, accessToken: string, subject: string) => {
  if (!metadata.userinfo_endpoint) return {};
  const response = await upstreamFetch(metadata.userinfo_endpoint, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  if (!response.ok) throw new FederationError('refused', `userinfo answered ${response.status}`);
  const claims = identityClaims.safeParse(await jsonOf(response, 'the userinfo response'));
  if (!claims.success || claims.data.sub !== subject) {
    throw new FederationError('invalid-answer', 'userinfo: sub does not match the ID token');
  }
  return claims.data;
};

/** The code from the upstream's redirect, exchanged and validated: who the upstream says signed in. */
export const upstreamIdentity = async (
  issuer: string,
  client: UpstreamClient,
  callback: { code: string; codeVerifier: string; nonce: string },
  now = Date.now(),
): Promise<UpstreamIdentity> => {
  const metadata = await discover(issuer, now);
  const tokens = await exchangeCode(metadata, client, callback.code, callback.codeVerifier);
  const payload = await verifiedIdToken(metadata, client.clientId, tokens.id_token, callback.nonce, now);
  const fromToken = identityClaims.safeParse(payload);
  if (!fromToken.success) throw new FederationError('invalid-answer', 'ID token: claims of the wrong type');
  const claims =
    fromToken.data.email === undefined && tokens.access_token
      ? { ...fromToken.data, ...(await userInfoClaims(metadata, tokens.access_token, fromToken.data.sub)) }
      : fromToken.data;
  const amr = z.array(z.string().max(32)).max(10).safeParse(payload.amr).data ?? [];
  return {
    subject: claims.sub,
    email: claims.email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: claims.name,
    amr,
  };
};
