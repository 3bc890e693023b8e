import * as z from 'zod';
import { isLoopbackHost } from '../../domain/applications.js';
import { jwsHeader, verifiedJws } from '../compact-jwt.js';
import { discard, FederationError, newDeadline, readJson, upstreamFetch } from './upstream-http.js';
import { ID_TOKEN_ALGORITHMS, keyFor } from './upstream-keys.js';

/**
 * The relying-party side of federation with an SSO provider's upstream OpenID Connect issuer:
 * its discovery document, the code exchange and the ID token's validation (OpenID Connect Core
 * 3.1.3.5 to 3.1.3.7). Written over `fetch` and node:crypto (../compact-jwt.ts): a relying-party
 * library (openid-client, or jose for the signature alone) would add 18 KB or more to a bundle
 * at its budget, and its own caches beside the ones DECISIONS.md asks for (discovery and keys
 * kept at most an hour, an unknown `kid` refreshing the keys at most once a minute). Nothing the
 * upstream sends is used before it is validated.
 */

export { FederationError, type FederationFailure } from './upstream-http.js';

const DISCOVERY_MAX_AGE_MILLIS = 3_600_000;
/** Clock difference tolerated with the upstream. */
const CLOCK_TOLERANCE_SECONDS = 60;

/** An endpoint the issuer names must be https, or http on loopback like the issuer itself. */
const endpoint = (issuer: URL) =>
  z.string().refine((value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && issuer.protocol === 'http:' && isLoopbackHost(url.hostname))
    );
  });

const discoveryDocument = (issuer: string) => {
  const issuerUrl = new URL(issuer);
  return z.object({
    issuer: z.literal(issuer),
    authorization_endpoint: endpoint(issuerUrl),
    token_endpoint: endpoint(issuerUrl),
    jwks_uri: endpoint(issuerUrl),
    userinfo_endpoint: endpoint(issuerUrl).optional(),
    /** RFC 9207: the upstream names itself in its authorization responses. */
    authorization_response_iss_parameter_supported: z.boolean().optional(),
  });
};
export type UpstreamMetadata = z.output<ReturnType<typeof discoveryDocument>>;

const discoveryCache = new Map<string, { metadata: UpstreamMetadata; until: number }>();

/** The issuer's discovery document (OpenID Connect Discovery 1.0 section 4), cached up to an hour. */
export const discover = async (
  issuer: string,
  now = Date.now(),
  deadline = newDeadline(),
): Promise<UpstreamMetadata> => {
  const cached = discoveryCache.get(issuer);
  if (cached && cached.until > now) return cached.metadata;
  const response = await upstreamFetch(
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    { headers: { accept: 'application/json' } },
    deadline,
  );
  if (!response.ok) {
    await discard(response);
    throw new FederationError('unreachable', `discovery answered ${response.status}`);
  }
  const parsed = discoveryDocument(issuer).safeParse(await readJson(response, 'the discovery document'));
  if (!parsed.success) {
    throw new FederationError(
      'invalid-answer',
      `discovery document: ${parsed.error.issues[0]?.path.join('.')}`,
    );
  }
  discoveryCache.set(issuer, { metadata: parsed.data, until: now + DISCOVERY_MAX_AGE_MILLIS });
  return parsed.data;
};

export interface UpstreamClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const tokenResponse = z.object({
  id_token: z.string().min(1).max(16_384),
  access_token: z.string().min(1).max(16_384).optional(),
});

/** RFC 6749 2.3.1: both parts form-encoded before Basic encoding. */
const basicCredentials = (client: UpstreamClient) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64')}`;

/** The OAuth error code of a refusal, if its body has one (any body will do). */
const errorCodeOf = async (response: Response) => {
  const body = await readJson(response, 'the error').catch(() => undefined);
  const error = z.object({ error: z.string().max(100) }).safeParse(body).data?.error;
  return error?.replace(/[^\w.-]/g, '') || `status ${response.status}`;
};

/** Exchanges the code at the upstream's token endpoint (client_secret_basic, PKCE verifier). */
const exchangeCode = async (
  metadata: UpstreamMetadata,
  client: UpstreamClient,
  callback: { code: string; codeVerifier: string },
  deadline: number,
) => {
  const response = await upstreamFetch(
    metadata.token_endpoint,
    {
      method: 'POST',
      headers: {
        authorization: basicCredentials(client),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.code,
        redirect_uri: client.redirectUri,
        code_verifier: callback.codeVerifier,
      }),
    },
    deadline,
  );
  if (!response.ok) {
    // The status decides first: a 401 is a refused client whatever its body says, or lacks.
    const error = await errorCodeOf(response);
    const clientRefused =
      response.status === 401 || error === 'invalid_client' || error === 'unauthorized_client';
    throw new FederationError(clientRefused ? 'client-refused' : 'refused', `token endpoint: ${error}`);
  }
  const parsed = tokenResponse.safeParse(await readJson(response, 'the token response'));
  if (!parsed.success) throw new FederationError('invalid-answer', 'token response without an ID token');
  return parsed.data;
};

const identityClaims = z.object({
  sub: z.string().min(1).max(255),
  // ASCII addresses only: a lookalike (the Kelvin sign lowercases to k) never matches an account.
  email: z.email().max(254).optional(),
  email_verified: z.union([z.boolean(), z.literal('true'), z.literal('false')]).optional(),
  name: z.string().max(500).optional(),
});

export interface UpstreamIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** The upstream's own `amr` (RFC 8176), when it says. */
  amr: string[];
}

const invalid = (detail: string) => new FederationError('invalid-answer', `ID token: ${detail}`);

/** OpenID Connect Core 3.1.3.7: signature, then iss, aud and azp, exp, iat, nbf, nonce. */
const verifiedIdToken = async (
  metadata: UpstreamMetadata,
  clientId: string,
  idToken: string,
  expected: { nonce: string; now: number; deadline: number },
): Promise<Record<string, unknown>> => {
  const header = jwsHeader(idToken);
  if (!header) throw invalid('not a compact JWS');
  if (typeof header.alg !== 'string' || !Object.hasOwn(ID_TOKEN_ALGORITHMS, header.alg)) {
    throw invalid('algorithm not accepted');
  }
  const key = await keyFor(metadata.jwks_uri, header.kid, header.alg, expected.now, expected.deadline);
  if (!key) throw invalid('no key of the upstream matches');
  const verified = verifiedJws(idToken, key, ID_TOKEN_ALGORITHMS);
  if (!verified) throw invalid('signature does not verify');
  const { payload } = verified;
  const seconds = expected.now / 1000;
  const audiences =
    typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
  const late = (value: unknown) => typeof value !== 'number' || value > seconds + CLOCK_TOLERANCE_SECONDS;
  if (payload.iss !== metadata.issuer) throw invalid('iss is not the issuer');
  if (!audiences.includes(clientId)) throw invalid('aud is not this client');
  // With several audiences azp must name this client; when present it must anyway.
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== clientId) {
    throw invalid('azp is not this client');
  }
  if (typeof payload.exp !== 'number' || payload.exp <= seconds - CLOCK_TOLERANCE_SECONDS)
    throw invalid('expired');
  if (late(payload.iat)) throw invalid('iat in the future');
  if (payload.nbf !== undefined && late(payload.nbf)) throw invalid('not yet valid');
  if (payload.nonce !== expected.nonce) throw invalid('nonce mismatch');
  return payload;
};

/** The email claims from the UserInfo endpoint, when the ID token carries none (Core 5.3.2: same `sub`). */
const userInfoClaims = async (
  metadata: UpstreamMetadata,
  accessToken: string,
  subject: string,
  deadline: number,
) => {
  if (!metadata.userinfo_endpoint) return {};
  const response = await upstreamFetch(
    metadata.userinfo_endpoint,
    { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
    deadline,
  );
  if (!response.ok) {
    await discard(response);
    throw new FederationError('refused', `userinfo answered ${response.status}`);
  }
  const claims = identityClaims.safeParse(await readJson(response, 'the userinfo response'));
  if (!claims.success || claims.data.sub !== subject) {
    throw new FederationError(
      'invalid-answer',
      'userinfo: not the ID token subject, or claims of the wrong type',
    );
  }
  return claims.data;
};

/**
 * The code from the upstream's redirect, exchanged and validated: who the upstream says signed in.
 * `now` is the clock the tokens are checked against; `deadline` ends the upstream calls.
 */
export const upstreamIdentity = async (
  issuer: string,
  client: UpstreamClient,
  callback: { code: string; codeVerifier: string; nonce: string; iss: string | null },
  now = Date.now(),
  deadline = newDeadline(),
): Promise<UpstreamIdentity> => {
  const metadata = await discover(issuer, now, deadline);
  // RFC 9207 (mix-up): an authorization response that names its issuer must name this one, and
  // one whose issuer promises to name itself must.
  if (
    callback.iss !== null
      ? callback.iss !== metadata.issuer
      : metadata.authorization_response_iss_parameter_supported
  ) {
    throw new FederationError('invalid-answer', 'authorization response: iss is not the issuer');
  }
  const tokens = await exchangeCode(metadata, client, callback, deadline);
  const payload = await verifiedIdToken(metadata, client.clientId, tokens.id_token, {
    nonce: callback.nonce,
    now,
    deadline,
  });
  const fromToken = identityClaims.safeParse(payload);
  if (!fromToken.success) throw new FederationError('invalid-answer', 'ID token: claims of the wrong type');
  const claims =
    fromToken.data.email === undefined && tokens.access_token
      ? {
          ...fromToken.data,
          ...(await userInfoClaims(metadata, tokens.access_token, fromToken.data.sub, deadline)),
        }
      : fromToken.data;
  return {
    subject: claims.sub,
    email: claims.email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    name: claims.name,
    amr: z.array(z.string().max(32)).max(10).safeParse(payload.amr).data ?? [],
  };
};
