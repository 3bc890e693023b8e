import { createPrivateKey, generateKeyPair, type JsonWebKey, type KeyObject, randomUUID } from 'node:crypto';
import { perStoreSettings } from '../config.js';
import { ID_TOKEN_SIGNING_ALGORITHMS, type IdTokenSigningAlgorithm } from '../domain/applications.js';
import { logger } from '../http/logger.js';
import * as z from '../zod.js';
import { SIGNING_KEY_SECRETS, secretStore } from './secret-store.js';

/**
 * What the service signs with: ES256 signs access tokens and audit digests too, RS256 only the
 * ID tokens of the applications that ask for it.
 */
const SIGNING_ALGORITHMS = ID_TOKEN_SIGNING_ALGORITHMS;
export type SigningAlgorithm = IdTokenSigningAlgorithm;

/** Keys are re-read this often, so a rotation reaches every instance within this time. */
const CACHE_MILLIS = 5 * 60 * 1000;

type JWK = JsonWebKey & { kid?: string; alg?: string; use?: string };

interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const keyPair =
  (resolve: (pair: KeyPair) => void, reject: (error: Error) => void) =>
  (error: Error | null, publicKey: KeyObject, privateKey: KeyObject) =>
    error ? reject(error) : resolve({ privateKey, publicKey });

/** One key set per algorithm, each in a secret of its own (as Keycloak keeps a provider per algorithm). */
interface KeyRing {
  secret: string;
  kty: 'EC' | 'RSA';
  /** Off the event loop: an RSA key takes a few hundred milliseconds of CPU. */
  generate: () => Promise<KeyPair>;
  /** Whether the public halves of dropped keys are kept: the audit digests' (ES256) must verify for years. */
  remembersDropped: boolean;
}

const RINGS: Record<SigningAlgorithm, KeyRing> = {
  ES256: {
    secret: SIGNING_KEY_SECRETS.ES256,
    kty: 'EC',
    generate: () =>
      new Promise((resolve, reject) =>
        generateKeyPair('ec', { namedCurve: 'P-256' }, keyPair(resolve, reject)),
      ),
    remembersDropped: true,
  },
  RS256: {
    secret: SIGNING_KEY_SECRETS.RS256,
    kty: 'RSA',
    // 2048 bits: NIST's minimum until 2030, and what Keycloak, Auth0 and Cognito sign ID tokens with.
    generate: () =>
      new Promise((resolve, reject) =>
        generateKeyPair('rsa', { modulusLength: 2048 }, keyPair(resolve, reject)),
      ),
    remembersDropped: false,
  },
};

interface StoredSigningKey {
  kid: string;
  createdAt: number;
  /** When a newer key took over signing; tokens it signed stay valid for a lifetime after. */
  retiredAt?: number;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Newest first: the first key signs, all of them verify (kept until their tokens expire). */
interface SigningKeySet {
  keys: StoredSigningKey[];
  /**
   * The public halves of keys dropped from `keys`, newest first: no token they signed is valid
   * any more, but the audit digests they signed must keep verifying (`audit verify`).
   */
  retiredPublicKeys?: JWK[];
}

/** Public keys kept for old digests: about 250 bytes each, well inside a secret's 64 KB. */
const MAX_RETIRED_PUBLIC_KEYS = 100;

const storedJwk = z.looseObject({ kty: z.enum(['EC', 'RSA']) });
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

/** The key set a secret's value holds, when it holds one of the ring's key type. */
const keySetIn = (ring: KeyRing, value: string): SigningKeySet | undefined => {
  try {
    const parsed = storedKeySet.safeParse(JSON.parse(value));
    if (!parsed.success) return undefined;
    const { keys, retiredPublicKeys = [] } = parsed.data;
    const jwks = [...keys.flatMap((key) => [key.privateJwk, key.publicJwk]), ...retiredPublicKeys];
    return jwks.every((jwk) => jwk.kty === ring.kty) ? (parsed.data as SigningKeySet) : undefined;
  } catch {
    return undefined;
  }
};

/** The key set a secret holds; anything else fails naming the secret, since no token can be signed. */
const parseKeySet = (ring: KeyRing, value: string): SigningKeySet => {
  const keySet = keySetIn(ring, value);
  if (!keySet) {
    const problem = `The secret "${ring.secret}" does not hold a signing key set ({"keys": [...]} of ${ring.kty} keys)`;
    logger.error(problem);
    throw new Error(problem);
  }
  return keySet;
};

const newSigningKey = async (algorithm: SigningAlgorithm, now: number): Promise<StoredSigningKey> => {
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

export interface SigningKey {
  algorithm: SigningAlgorithm;
  kid: string;
  key: KeyObject;
}

interface LoadedKeys {
  keySet: SigningKeySet;
  signing: SigningKey;
  /** The published keys. */
  jwks: JWK[];
  /** The published keys and the retired ones: what the audit digests are verified with. */
  everSigned: JWK[];
}

/** The keys as last loaded, per store (the CLI and tests re-point it). */
const loaded = perStoreSettings(() => ({
  rings: {} as Partial<Record<SigningAlgorithm, { loadedAt: number; keys: Promise<LoadedKeys | undefined> }>>,
  /** One JWKS object per pair of loads, so a verifier can tell when the keys changed. */
  jwks: undefined as { of: (LoadedKeys | undefined)[]; jwks: { keys: JWK[] } } | undefined,
}));

/**
 * A ring's key set; with `create`, a missing secret or the stack's placeholder is initialized
 * once (the first writer wins, so all instances agree on one key). An initialized secret that no
 * longer parses fails, naming the secret.
 */
const readKeys = async (algorithm: SigningAlgorithm, create: boolean): Promise<LoadedKeys | undefined> => {
  const ring = RINGS[algorithm];
  const store = await secretStore();
  const current = await store.get(ring.secret);
  const isKeySet = (value: string) => keySetIn(ring, value) !== undefined;
  if (!create && (current === undefined || !isKeySet(current))) return undefined;
  const keySet = parseKeySet(
    ring,
    current !== undefined && isKeySet(current)
      ? current
      : await store.initialize(ring.secret, await newSigningKeySet(algorithm), isKeySet),
  );
  const [newest] = keySet.keys;
  if (!newest) throw new Error('The signing key set is empty');
  const jwks = keySet.keys.map((key) => key.publicJwk);
  return {
    keySet,
    signing: { algorithm, kid: newest.kid, key: createPrivateKey({ key: newest.privateJwk, format: 'jwk' }) },
    jwks,
    everSigned: [...jwks, ...(keySet.retiredPublicKeys ?? [])],
  };
};

/**
 * A ring's keys, loaded once per cache period and shared by concurrent callers (the private key
 * imported once per load). Without `create`, a ring not initialized yet answers undefined, and
 * that is not remembered: the oauth function may create it at any moment.
 */
const loadKeys = async (algorithm: SigningAlgorithm, create: boolean): Promise<LoadedKeys | undefined> => {
  const state = loaded();
  let entry = state.rings[algorithm];
  if (!entry || Date.now() - entry.loadedAt >= CACHE_MILLIS) {
    const started = { loadedAt: Date.now(), keys: readKeys(algorithm, create) };
    const forget = () => {
      if (state.rings[algorithm] === started) delete state.rings[algorithm];
    };
    started.keys.then((keys) => keys ?? forget(), forget);
    state.rings[algorithm] = started;
    entry = started;
  }
  const keys = await entry.keys;
  return keys ?? (create ? loadKeys(algorithm, create) : undefined);
};

const createdKeys = async (algorithm: SigningAlgorithm): Promise<LoadedKeys> =>
  (await loadKeys(algorithm, true)) as LoadedKeys;

/** The key that signs with `algorithm` now (the ring is created on first use). */
export const currentSigningKey = async (algorithm: SigningAlgorithm = 'ES256'): Promise<SigningKey> =>
  (await createdKeys(algorithm)).signing;

const jwksOf = (rings: (LoadedKeys | undefined)[]): { keys: JWK[] } => {
  const state = loaded();
  if (state.jwks?.of.every((ring, index) => ring === rings[index])) return state.jwks.jwks;
  const jwks = { keys: rings.flatMap((ring) => ring?.jwks ?? []) };
  state.jwks = { of: rings, jwks };
  return jwks;
};

/** The JWKS applications verify the service's tokens with: every ring's keys, created if need be. */
export const publicJwks = async (): Promise<{ keys: JWK[] }> =>
  jwksOf(await Promise.all(SIGNING_ALGORITHMS.map(createdKeys)));

/**
 * The keys the service verifies its own tokens with: the same, but nothing is created, so a
 * function that may only read the secrets never writes one.
 */
export const verificationJwks = async (): Promise<{ keys: JWK[] }> =>
  jwksOf(await Promise.all(SIGNING_ALGORITHMS.map((algorithm) => loadKeys(algorithm, false))));

/** Every ES256 public key the service signed with and still remembers: the audit digests' verifier's. */
export const everySigningPublicJwk = async (): Promise<{ keys: JWK[] }> => ({
  keys: (await createdKeys('ES256')).everSigned,
});

const rotateRing = async (algorithm: SigningAlgorithm, retainMillis: number, now: number) => {
  const ring = RINGS[algorithm];
  const store = await secretStore();
  const stored = await store.get(ring.secret);
  const current = (stored !== undefined && keySetIn(ring, stored)) || (await createdKeys(algorithm)).keySet;
  const fresh = await newSigningKey(algorithm, now);
  const retired = current.keys.map((key) => ({ ...key, retiredAt: key.retiredAt ?? now }));
  const kept = retired.filter((key) => now - key.retiredAt < retainMillis + CACHE_MILLIS);
  const dropped = retired.filter((key) => !kept.includes(key)).map((key) => key.publicJwk);
  const retiredPublicKeys = ring.remembersDropped
    ? [...dropped, ...(current.retiredPublicKeys ?? [])].slice(0, MAX_RETIRED_PUBLIC_KEYS)
    : undefined;
  await store.put(
    ring.secret,
    JSON.stringify({
      keys: [fresh, ...kept],
      ...(retiredPublicKeys ? { retiredPublicKeys } : {}),
    } satisfies SigningKeySet),
  );
  delete loaded().rings[algorithm];
  return fresh.kid;
};

/**
 * Puts a new key in front of every ring and retires the current ones. A retired key stays
 * published while a token it signed can still be valid: `retainMillis` (the token lifetime) after
 * its retirement, plus the time other instances may keep signing with it from their cache.
 * Answers the new keys' ids.
 */
export const rotateSigningKeys = async (
  retainMillis: number,
  now = Date.now(),
): Promise<Record<SigningAlgorithm, string>> => {
  const [rs256, es256] = await Promise.all(
    SIGNING_ALGORITHMS.map((algorithm) => rotateRing(algorithm, retainMillis, now)),
  );
  return { RS256: rs256 as string, ES256: es256 as string };
};
