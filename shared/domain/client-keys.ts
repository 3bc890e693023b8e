/**
 * Clients that authenticate with `private_key_jwt` (OpenID Connect Core 9, RFC 7523): they
 * register public keys as a JWK Set and prove themselves with a JWT they sign. Pure rules (the
 * console checks forms with them too): which key sets can be registered, which key an assertion
 * names, and the claims an assertion must carry beyond what aws-jwt-verify checks (its signature,
 * `alg` against the key, `iss`, `exp`, `nbf`). Whether a key's numbers make a key at all is
 * Node's to say, when the key set is stored (shared/store/client-key-material.ts).
 */

export const PRIVATE_KEY_JWT = 'private_key_jwt';

/** RFC 7521 section 4.2's `client_assertion_type` for a JWT. */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** What aws-jwt-verify verifies; no HMAC: a registered key is public. */
export const CLIENT_ASSERTION_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

export const MAX_CLIENT_KEYS = 5;
/** An assertion may be made at most this long before it expires: its `jti` is kept until then. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 600;
const MAX_JTI_LENGTH = 256;
const MIN_RSA_BITS = 2048;

export interface ClientJwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  crv?: string;
  [member: string]: unknown;
}
export interface ClientJwks {
  keys: ClientJwk[];
}

/** Members only a private or symmetric key has (RFC 7518 6.2.2, 6.3.2, 6.4). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
/** The key an algorithm signs with: its kty, and for EC its curve (RFC 7518 3.4). */
const KEY_OF_ALGORITHM: Record<(typeof CLIENT_ASSERTION_ALGORITHMS)[number], { kty: string; crv?: string }> =
  {
    RS256: { kty: 'RSA' },
    RS384: { kty: 'RSA' },
    RS512: { kty: 'RSA' },
    ES256: { kty: 'EC', crv: 'P-256' },
    ES384: { kty: 'EC', crv: 'P-384' },
    ES512: { kty: 'EC', crv: 'P-521' },
    EdDSA: { kty: 'OKP' },
  };
const CURVES: Record<string, readonly string[]> = {
  EC: ['P-256', 'P-384', 'P-521'],
  OKP: ['Ed25519'],
  RSA: [],
};

/** Whether `alg` signs with a key of this type (and, for EC, this curve): RFC 7518 3.1. */
export const algorithmFitsKey = (alg: unknown, jwk: Pick<ClientJwk, 'kty' | 'crv'>): boolean => {
  if (typeof alg !== 'string' || !Object.hasOwn(KEY_OF_ALGORITHM, alg)) return false;
  const fits = KEY_OF_ALGORITHM[alg as keyof typeof KEY_OF_ALGORITHM];
  return fits.kty === jwk.kty && (fits.crv === undefined || fits.crv === jwk.crv);
};

const keyProblem = (jwk: ClientJwk): string | undefined => {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return 'A key is a JSON object';
  const curves = Object.hasOwn(CURVES, jwk.kty) ? CURVES[jwk.kty] : undefined;
  if (!curves) return 'kty must be EC, RSA or OKP';
  if (PRIVATE_MEMBERS.some((member) => member in jwk))
    return 'Register the public key only: it holds private members';
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'use must be sig';
  if (jwk.alg !== undefined) {
    if (!(CLIENT_ASSERTION_ALGORITHMS as readonly unknown[]).includes(jwk.alg))
      return `alg must be one of ${CLIENT_ASSERTION_ALGORITHMS.join(', ')}`;
    if (!algorithmFitsKey(jwk.alg, jwk)) return `alg ${jwk.alg} does not fit this key`;
  }
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid.length === 0 || jwk.kid.length > 200))
    return 'kid must be a string of 1 to 200 characters';
  if (curves.length > 0 && !curves.includes(String(jwk.crv)))
    return `crv must be one of ${curves.join(', ')}`;
  if (jwk.kty === 'RSA') return rsaProblem(jwk);
  return undefined;
};

/** The octets of a base64url member, or undefined when it is not one spelling of some octets. */
const octetsOf = (value: unknown): string | undefined => {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value) || value.length % 4 === 1)
    return undefined;
  return atob(
    value
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(value.length / 4) * 4, '='),
  );
};

/**
 * An RSA key's modulus has at least 2048 bits and its exponent is odd and at least 65537 (NIST SP
 * 800-56B; e = 1 would let anyone sign). Both big-endian without a leading zero octet (RFC 7518
 * 6.3.1), so their length is their size.
 */
const rsaProblem = (jwk: ClientJwk): string | undefined => {
  const n = octetsOf(jwk.n);
  const e = octetsOf(jwk.e);
  if (!n || !e || n.charCodeAt(0) === 0 || e.charCodeAt(0) === 0)
    return 'n and e must be base64url without leading zero octets';
  const bits = (n.length - 1) * 8 + n.charCodeAt(0).toString(2).length;
  if (bits < MIN_RSA_BITS) return `An RSA key must have at least ${MIN_RSA_BITS} bits`;
  const exponent = [...e].reduce((value, octet) => value * 256n + BigInt(octet.charCodeAt(0)), 0n);
  if (exponent < 65537n || exponent % 2n === 0n) return 'e must be odd and at least 65537';
  return undefined;
};

/**
 * Why a key set cannot be registered, or undefined: 1 to 5 public signing keys; with more than
 * one, each has a distinct `kid`, which the assertion's header names.
 */
export const clientKeySetProblem = (jwks: ClientJwks): { index?: number; message: string } | undefined => {
  if (!Array.isArray(jwks?.keys)) return { message: 'A JWK Set: an object whose keys member lists the keys' };
  if (jwks.keys.length === 0) return { message: 'Register at least one key' };
  if (jwks.keys.length > MAX_CLIENT_KEYS) return { message: `Register at most ${MAX_CLIENT_KEYS} keys` };
  for (const [index, jwk] of jwks.keys.entries()) {
    const message = keyProblem(jwk);
    if (message) return { index, message };
  }
  if (jwks.keys.length > 1) {
    const kids = jwks.keys.map((jwk) => jwk.kid);
    const index = kids.findIndex((kid, at) => kid === undefined || kids.indexOf(kid) !== at);
    if (index >= 0) return { index, message: 'With several keys, each needs a kid of its own' };
  }
  return undefined;
};

/** The registered key an assertion's header names: by `kid`, or the only one when it names none. */
export const keyForAssertion = (jwks: ClientJwks, kid: unknown): ClientJwk | undefined =>
  kid === undefined
    ? jwks.keys.length === 1
      ? jwks.keys[0]
      : undefined
    : jwks.keys.find((k) => k.kid === kid);

/** A client authentication JWT's `typ`, if it has one (RFC 10070's explicit type), as a media type. */
const ASSERTION_TYPES = new Set(['application/jwt', 'application/client-authentication+jwt']);

/**
 * `typ` as the media type it names (RFC 7515 4.1.9): compared without regard to case, and one
 * without a `/` is under `application/`.
 */
const mediaTypeOf = (typ: string) => {
  const lower = typ.toLowerCase();
  return lower.includes('/') ? lower : `application/${lower}`;
};

/** Why an assertion's header is refused, or undefined: another token type, or an extension. */
export const assertionHeaderProblem = (header: Record<string, unknown>): string | undefined => {
  if (header.typ !== undefined && !ASSERTION_TYPES.has(mediaTypeOf(String(header.typ))))
    return 'typ must be client-authentication+jwt (or JWT, or absent)';
  if (header.crit !== undefined) return 'crit names an extension this service does not understand';
  return undefined;
};

/**
 * Why a verified assertion's claims are refused, or undefined. `iss` and `sub` are the client's id
 * (RFC 7523 3); `aud` is this server's issuer identifier as a string, its sole value (RFC 10070,
 * which forbids the token endpoint's URL and a one-element array since assertions meant for one
 * server could be replayed at another); `exp` at most ten minutes ahead, and a `jti`, which is
 * accepted once.
 */
export const assertionClaimsProblem = (
  payload: Record<string, unknown>,
  expected: { clientId: string; issuer: string; nowSeconds: number },
): string | undefined => {
  if (payload.iss !== expected.clientId || payload.sub !== expected.clientId)
    return 'iss and sub must be the client_id';
  if (payload.aud !== expected.issuer) return `aud must be this server's issuer identifier, as a string`;
  if (typeof payload.exp !== 'number') return 'exp is required';
  if (payload.exp > expected.nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS)
    return `exp may be at most ${MAX_ASSERTION_LIFETIME_SECONDS} seconds ahead`;
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > MAX_JTI_LENGTH)
    return `jti is required (at most ${MAX_JTI_LENGTH} characters)`;
  return undefined;
};
