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

const refuse = (reason: string): never => {
  throw new Error(reason);
};

let verifier:
  | { jwks: object; issuer: string; verify: (token: string, expectation: OwnTokenExpectation) => JwtPayload }
  | undefined;

/** One verifier per key set and issuer: it keeps the keys it imported until either changes. */
const ownVerifier = async () => {
  const jwks = await verificationJwks();
  const issuer = config().publicOrigin;
  if (verifier?.jwks !== jwks || verifier.issuer !== issuer) {
    const created = JwtVerifier.create({ issuer, audience: null });
    created.cacheJwks(jwks as Parameters<typeof created.cacheJwks>[0]);
    verifier = {
      jwks,
      issuer,
      verify: (token, { typ, audience, graceSeconds }) =>
        created.verifySync(token, {
          audience,
          graceSeconds: graceSeconds ?? 0,
          customJwtCheck: ({ header }: { header: JwtHeader }) => {
            if (header.typ !== typ) refuse('unexpected typ');
            if (header.crit !== undefined) refuse('crit names an extension this service does not understand');
          },
        }),
    };
  }
  return verifier.verify;
};

/** The payload of a token of this service meeting `expectation`; undefined for any other. */
export const verifiedOwnToken = async (
  token: string,
  expectation: OwnTokenExpectation,
): Promise<JwtPayload | undefined> => {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(isStrictBase64url)) return undefined;
  const verify = await ownVerifier();
  try {
    return verify(token, expectation);
  } catch {
    return undefined;
  }
};
