import { constants, createPublicKey, type KeyObject } from 'node:crypto';
import * as z from 'zod';
import { ES256, type JwsAlgorithm } from '../compact-jwt.js';
import { FederationError, readJson, upstreamFetch } from './upstream-http.js';

/**
 * The upstream's signing keys (its JWKS) and the algorithms its ID tokens may use. DECISIONS.md:
 * keys kept at most an hour; a token with an unknown `kid` fetches them again at most once a
 * minute (the upstream rotated its keys).
 */

const KEYS_MAX_AGE_MILLIS = 3_600_000;
const KEY_REFRESH_MILLIS = 60_000;
const MIN_RSA_BITS = 2048;

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

/** RFC 7518 3.4: each ECDSA algorithm has its curve. */
const CURVES: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** Whether `key` is of the type, curve and strength `alg` needs. */
const suits = (key: KeyObject, alg: string) => {
  const details = key.asymmetricKeyDetails ?? {};
  if (!ID_TOKEN_ALGORITHMS[alg]?.keyTypes.includes(key.asymmetricKeyType ?? '')) return false;
  if (CURVES[alg]) return details.namedCurve === CURVES[alg];
  return !key.asymmetricKeyType?.startsWith('rsa') || (details.modulusLength ?? 0) >= MIN_RSA_BITS;
};

interface UpstreamKey {
  kid: string | undefined;
  alg: string | undefined;
  key: KeyObject;
}

const jwkSet = z.object({ keys: z.array(z.record(z.string(), z.unknown())).max(100) });
const keySets = new Map<string, { keys: UpstreamKey[]; fetchedAt: number }>();

/** The upstream's signing keys; a key that does not import (or is for encryption) is left out. */
const fetchKeys = async (jwksUri: string, deadline: number): Promise<UpstreamKey[]> => {
  const response = await upstreamFetch(jwksUri, { headers: { accept: 'application/json' } }, deadline);
  const body = await readJson(response, 'the JWKS');
  if (!response.ok) throw new FederationError('unreachable', `JWKS answered ${response.status}`);
  const parsed = jwkSet.safeParse(body);
  if (!parsed.success) throw new FederationError('invalid-answer', 'JWKS: not a key set');
  return parsed.data.keys.flatMap((jwk) => {
    if (jwk.use === 'enc') return [];
    try {
      const key = createPublicKey({ key: jwk as never, format: 'jwk' });
      const kid = typeof jwk.kid === 'string' ? jwk.kid : undefined;
      return [{ kid, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined, key }];
    } catch {
      return [];
    }
  });
};

/** The key for a token's `kid` and `alg` (with no `kid`, only an unambiguous set will do). */
export const keyFor = async (jwksUri: string, kid: unknown, alg: string, now: number, deadline: number) => {
  const pick = (keys: UpstreamKey[]) => {
    const candidates = keys.filter(
      (key) =>
        (key.alg === undefined || key.alg === alg) &&
        (kid === undefined || key.kid === kid) &&
        suits(key.key, alg),
    );
    return candidates.length === 1 ? candidates[0]?.key : undefined;
  };
  const cached = keySets.get(jwksUri);
  const fresh = cached && now - cached.fetchedAt < KEYS_MAX_AGE_MILLIS;
  const found = fresh ? pick(cached.keys) : undefined;
  if (found || (fresh && now - cached.fetchedAt < KEY_REFRESH_MILLIS)) return found;
  const keys = await fetchKeys(jwksUri, deadline);
  keySets.set(jwksUri, { keys, fetchedAt: now });
  return pick(keys);
};
