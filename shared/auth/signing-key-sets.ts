import { generateKeyPair, type JsonWebKey, type KeyObject, randomUUID } from 'node:crypto';
import { ID_TOKEN_SIGNING_ALGORITHMS, type IdTokenSigningAlgorithm } from '../domain/applications.js';
import { logger } from '../http/logger.js';
import * as z from '../zod.js';
import { PUBLIC_KEY_SECRETS, SIGNING_KEY_SECRETS } from './secret-store.js';

/**
 * What the service signs with, one key set (ring) per algorithm, each in a secret of its own (as
 * Keycloak keeps a key provider per algorithm): ES256 signs access tokens, audit digests and the
 * ID tokens of applications registered for it; RS256 the other applications' ID tokens.
 */
export const SIGNING_ALGORITHMS = ID_TOKEN_SIGNING_ALGORITHMS;
export type SigningAlgorithm = IdTokenSigningAlgorithm;

export type JWK = JsonWebKey & { kid?: string; alg?: string; use?: string };

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const keyPair =
  (resolve: (pair: KeyPair) => void, reject: (error: Error) => void) =>
  (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) =>
    error ? reject(error) : resolve({ privateKey, publicKey });

/** 2048 bits: RFC 7518 3.3's minimum for RS256, and what Keycloak, Auth0 and Cognito sign with. */
const RSA_MODULUS_BITS = 2048;

export interface KeyRing {
  secret: string;
  /** Where the ring's published public keys are, for the functions that only verify. */
  publicSecret: string;
  /** Off the event loop: an RSA key takes a few hundred milliseconds of CPU. */
  generate: () => Promise<KeyPair>;
  /** Whether a stored key is of this ring: its type, curve or size, and algorithm. */
  holds: (jwk: JWK) => boolean;
  /** Whether the public halves of dropped keys are kept: the audit digests' (ES256) must verify for years. */
  remembersDropped: boolean;
}

export const RINGS: Record<SigningAlgorithm, KeyRing> = {
  ES256: {
    secret: SIGNING_KEY_SECRETS.ES256,
    publicSecret: PUBLIC_KEY_SECRETS.ES256,
    generate: () =>
      new Promise((resolve, reject) =>
        generateKeyPair('ec', { namedCurve: 'P-256' }, keyPair(resolve, reject)),
      ),
    holds: (jwk) => jwk.kty === 'EC' && jwk.crv === 'P-256' && jwk.alg === 'ES256',
    remembersDropped: true,
  },
  RS256: {
    secret: SIGNING_KEY_SECRETS.RS256,
    publicSecret: PUBLIC_KEY_SECRETS.RS256,
    generate: () =>
      new Promise((resolve, reject) =>
        generateKeyPair('rsa', { modulusLength: RSA_MODULUS_BITS }, keyPair(resolve, reject)),
      ),
    holds: (jwk) =>
      jwk.kty === 'RSA' &&
      jwk.alg === 'RS256' &&
      Buffer.from(jwk.n ?? '', 'base64url').length * 8 >= RSA_MODULUS_BITS,
    remembersDropped: false,
  },
};

export interface StoredSigningKey {
  kid: string;
  createdAt: number;
  /** When a newer key took over signing; tokens it signed stay valid for a lifetime after. */
  retiredAt?: number;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Newest first: the first key signs, all of them verify (kept until their tokens expire). */
export interface SigningKeySet {
  keys: StoredSigningKey[];
  /**
   * The public halves of keys dropped from `keys`, newest first: no token they signed is valid
   * any more, but the audit digests they signed must keep verifying (`audit verify`).
   */
  retiredPublicKeys?: JWK[];
}

const storedJwk = z.looseObject({ kty: z.string() });
const storedKeySet = z.object({
  keys: z
    .array(
      z.object({
        kid: z.string().check(z.minLength(1)),
        createdAt: z.number(),
        retiredAt: z.optional(z.number()),
        privateJwk: storedJwk,
        publicJwk: storedJwk,
      }),
    )
    .check(z.minLength(1)),
  retiredPublicKeys: z.optional(z.array(storedJwk)),
});

/** The key set a secret's value holds, when every key in it is of the ring. */
export const keySetIn = (ring: KeyRing, value: string): SigningKeySet | undefined => {
  try {
    const parsed = storedKeySet.safeParse(JSON.parse(value));
    if (!parsed.success) return undefined;
    const { keys, retiredPublicKeys = [] } = parsed.data as SigningKeySet;
    const jwks = [...keys.flatMap((key) => [key.privateJwk, key.publicJwk]), ...retiredPublicKeys];
    return jwks.every(ring.holds) ? (parsed.data as SigningKeySet) : undefined;
  } catch {
    return undefined;
  }
};

/** The key set a secret holds; anything else fails naming the secret, since no token can be signed. */
export const parseKeySet = (algorithm: SigningAlgorithm, value: string): SigningKeySet => {
  const keySet = keySetIn(RINGS[algorithm], value);
  if (!keySet) {
    const problem = `The secret "${RINGS[algorithm].secret}" does not hold a signing key set ({"keys": [...]} of ${algorithm} keys)`;
    logger.error(problem);
    throw new Error(problem);
  }
  return keySet;
};

export const newSigningKey = async (algorithm: SigningAlgorithm, now: number): Promise<StoredSigningKey> => {
  const { privateKey, publicKey } = await RINGS[algorithm].generate();
  const kid = randomUUID();
  return {
    kid,
    createdAt: now,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: algorithm },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: algorithm, use: 'sig' },
  };
};

/** A secret's first value: a key set of one new key (tests store one ahead to share its cost). */
export const newSigningKeySet = async (algorithm: SigningAlgorithm, now = Date.now()): Promise<string> =>
  JSON.stringify({ keys: [await newSigningKey(algorithm, now)] } satisfies SigningKeySet);

/** The published public keys a ring's public secret holds (`{"keys": [...]}`), or undefined. */
export const publicKeysIn = (ring: KeyRing, value: string | undefined): JWK[] | undefined => {
  if (value === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    const keys = (parsed as { keys?: unknown }).keys;
    return Array.isArray(keys) &&
      keys.length > 0 &&
      keys.every(
        (key) => typeof key === 'object' && key !== null && typeof key.kid === 'string' && ring.holds(key),
      )
      ? (keys as JWK[])
      : undefined;
  } catch {
    return undefined;
  }
};
