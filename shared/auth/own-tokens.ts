import { JwtVerifier } from 'aws-jwt-verify';
import type { JwtHeader, JwtPayload } from 'aws-jwt-verify/jwt-model';
import { config } from '../config.js';
import { verificationJwks } from './signing-keys.js';

/**
 * Verifies a token this service signed (userinfo's access token, logout's ID token hint) with
 * aws-jwt-verify, against the service's own keys handed to it with `cacheJwks` and verified
 * synchronously, so nothing is ever fetched. It checks the signature, `alg` against the key's
 * (ES256 or RS256), `iss`, `exp` and `aud`; the caller checks the claims of its use.
 *
 * Two refusals it does not make are added: a part that is not strict base64url (RFC 7515 section
 * 2: no padding, only the URL-safe alphabet, and zero trailing bits, so a token has exactly one
 * spelling; the library accepts `=` and ignores trailing bits, which leaves a signature
 * malleable), and any `crit` header (RFC 7515 4.1.11: this service understands no extension).
 */

export interface OwnTokenExpectation {
  /** The header's `typ`: `at+jwt` for access tokens (RFC 9068), `JWT` for ID tokens. */
  typ: string;
  /** Some audience the `aud` claim must name; null: the caller checks it. */
  audience: string | null;
  /** Seconds past `exp` still accepted. */
  graceSeconds?: number;
}

const isStrictBase64url = (part: string): boolean =>
  /^[A-Za-z0-9_-]+$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part;

/** A compact JWS of three strict base64url parts (the one spelling a token may have). */
export const isStrictCompactJws = (token: string): boolean => {
  const parts = token.split('.');
  return parts.length === 3 && parts.every(isStrictBase64url);
};

const refuse = (reason: string): never => {
  throw new Error(reason);
};

type Verify = (token: string, expectation: OwnTokenExpectation) => JwtPayload;

/**
 * Access tokens are ES256 only: they are verified against that ring alone, and a key of another
 * ring could not stand in. ID tokens (logout's hints) come from either.
 */
const ringsOf = (typ: string) => (typ === 'at+jwt' ? (['ES256'] as const) : undefined);

/** One verifier per key set and issuer: it keeps the keys it imported until either changes. */
const verifiers = new Map<string, { jwks: object; issuer: string; verify: Verify }>();

const ownVerifier = async (typ: string): Promise<Verify> => {
  const jwks = await verificationJwks(ringsOf(typ));
  const issuer = config().publicOrigin;
  const known = verifiers.get(typ);
  if (known?.jwks === jwks && known.issuer === issuer) return known.verify;
  const created = JwtVerifier.create({ issuer, audience: null });
  created.cacheJwks(jwks as Parameters<typeof created.cacheJwks>[0]);
  const verify: Verify = (token, { typ: expected, audience, graceSeconds }) =>
    created.verifySync(token, {
      audience,
      graceSeconds: graceSeconds ?? 0,
      customJwtCheck: ({ header }: { header: JwtHeader }) => {
        if (header.typ !== expected) refuse('unexpected typ');
        if (header.crit !== undefined) refuse('crit names an extension this service does not understand');
      },
    });
  verifiers.set(typ, { jwks, issuer, verify });
  return verify;
};

/** The payload of a token of this service meeting `expectation`; undefined for any other. */
export const verifiedOwnToken = async (
  token: string,
  expectation: OwnTokenExpectation,
): Promise<JwtPayload | undefined> => {
  if (!isStrictCompactJws(token)) return undefined;
  const verify = await ownVerifier(expectation.typ);
  try {
    return verify(token, expectation);
  } catch {
    return undefined;
  }
};
