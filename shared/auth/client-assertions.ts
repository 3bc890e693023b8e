import {
  JwtExpiredError,
  JwtInvalidClaimError,
  JwtInvalidIssuerError,
  JwtNotBeforeError,
} from 'aws-jwt-verify/error';
import { decomposeUnverifiedJwt } from 'aws-jwt-verify/jwt';
import type { JwtHeader } from 'aws-jwt-verify/jwt-model';
import { verifyJwtSync } from 'aws-jwt-verify/jwt-verifier';
import { config } from '../config.js';
import {
  algorithmFitsKey,
  assertionClaimsProblem,
  assertionHeaderProblem,
  type ClientJwks,
  keyForAssertion,
} from '../domain/client-keys.js';
import type { ApiClientRecord } from '../store/api-client-repository.js';
import { isStrictCompactJws } from './own-tokens.js';

/**
 * private_key_jwt (OpenID Connect Core 9, RFC 7523, RFC 10070): the client signs a short-lived JWT
 * with a key whose public half it registered. aws-jwt-verify checks the signature, `alg` against
 * the key and `exp`/`nbf`; the rules of client assertions are shared/domain/client-keys.ts's.
 */

/** An assertion the client signed, as presented (`client_assertion`). */
export interface PresentedAssertion {
  assertion: string;
}

/** The client an assertion says it comes from (`sub`), read unverified to find the client's keys. */
export const assertedClientId = (assertion: string): string | undefined => {
  if (!isStrictCompactJws(assertion)) return undefined;
  try {
    const { sub } = decomposeUnverifiedJwt(assertion).payload;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
};

/** What an accepted assertion leaves to be spent: its `jti`, until its `exp` (seconds). */
export interface AcceptedAssertion {
  jti: string;
  exp: number;
}

/** Why an assertion signed with a registered key was refused: its claims or header (said to the client). */
export interface RefusedAssertion {
  refused: string;
}

/**
 * The assertion's `jti` and `exp` when `client` registered the key that signed it and its header
 * and claims fit; why, when a registered key verified it but the rest does not fit; undefined for
 * anything else (no such key, a bad signature, not a JWT): nothing to tell about the keys.
 */
export const acceptedAssertion = (
  assertion: string,
  client: ApiClientRecord | undefined,
  now: number,
): AcceptedAssertion | RefusedAssertion | undefined => {
  if (!client?.jwks || client.tokenEndpointAuthMethod !== 'private_key_jwt') return undefined;
  if (!isStrictCompactJws(assertion)) return undefined;
  let signed = false;
  try {
    const { header } = decomposeUnverifiedJwt(assertion);
    const jwk = keyForAssertion(client.jwks as unknown as ClientJwks, header.kid);
    // The library ties alg to the key only when the key names its alg: here always.
    if (!jwk || !algorithmFitsKey(header.alg, jwk)) return undefined;
    const payload = verifyJwtSync(assertion, jwk as never, {
      issuer: client.id,
      audience: null,
      graceSeconds: 0,
      // Runs once the signature verified (and iss, exp and nbf held).
      customJwtCheck: ({ header: checked }: { header: JwtHeader }) => {
        signed = true;
        const problem = assertionHeaderProblem(checked);
        if (problem) throw new Error(problem);
      },
    });
    const problem = assertionClaimsProblem(payload, {
      clientId: client.id,
      issuer: config().publicOrigin,
      nowSeconds: Math.floor(now / 1000),
    });
    return problem ? { refused: problem } : { jti: payload.jti as string, exp: payload.exp as number };
  } catch (error) {
    if (signed) return { refused: (error as Error).message };
    // The library's claim errors come after the signature; said in fixed words, as its own
    // messages quote the assertion, and an error_description keeps to RFC 6749 5.2's characters.
    if (error instanceof JwtExpiredError) return { refused: 'exp has passed' };
    if (error instanceof JwtNotBeforeError) return { refused: 'nbf has not come yet' };
    if (error instanceof JwtInvalidIssuerError) return { refused: 'iss and sub must be the client_id' };
    return error instanceof JwtInvalidClaimError ? { refused: 'a claim is not valid' } : undefined;
  }
};
