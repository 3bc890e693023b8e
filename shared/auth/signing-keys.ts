import { createPrivateKey, type KeyObject } from 'node:crypto';
import { perStoreSettings } from '../config.js';
import { secretStore } from './secret-store.js';
import {
  type JWK,
  keySetIn,
  newSigningKey,
  newSigningKeySet,
  parseKeySet,
  publicKeysIn,
  RINGS,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type SigningKeySet,
} from './signing-key-sets.js';

export { newSigningKeySet, type SigningAlgorithm } from './signing-key-sets.js';

/** Keys are re-read this often, so a rotation reaches every instance within this time. */
const CACHE_MILLIS = 5 * 60 * 1000;
/**
 * Public keys not published yet are looked for again this often by a function that only verifies
 * (the oauth function may publish them at any moment), and not at every request anyone can send.
 */
const MISSING_CACHE_MILLIS = 10 * 1000;

/** Public keys kept for old digests: about 250 bytes each, well inside a secret's 64 KB. */
const MAX_RETIRED_PUBLIC_KEYS = 100;

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

/** A load per ring, kept for one cache period and shared by concurrent callers. */
type CachedLoads<T> = Partial<Record<SigningAlgorithm, { expiresAt: number; value: Promise<T> }>>;

/** The ring's cached load, or a new one (forgotten if it fails, so the next caller tries again). */
const cachedLoad = <T>(
  cache: CachedLoads<T>,
  algorithm: SigningAlgorithm,
  load: () => Promise<T>,
): Promise<T> => {
  const cached = cache[algorithm];
  if (cached && Date.now() < cached.expiresAt) return cached.value;
  const started = { expiresAt: Date.now() + CACHE_MILLIS, value: load() };
  cache[algorithm] = started;
  started.value.catch(() => {
    if (cache[algorithm] === started) delete cache[algorithm];
  });
  return started.value;
};

/** The keys as last loaded, per store (the CLI and tests re-point it). */
const loaded = perStoreSettings(() => ({
  rings: {} as CachedLoads<LoadedKeys>,
  /** Keys read as they are, by a function that may neither create nor publish them. */
  readOnly: {} as CachedLoads<SigningKey>,
  /** One JWKS object per set of loads, so a verifier can tell when the keys changed. */
  jwks: new Map<string, { of: (readonly JWK[] | undefined)[]; jwks: { keys: JWK[] } }>(),
}));

/**
 * The stack's placeholder is a generated password (lib/idp-secrets.ts), never JSON; anything JSON
 * was written as a key set, and a wrong one is refused rather than replaced, as replacing it
 * would lose keys that tokens in flight were signed with.
 */
const isPlaceholder = (value: string): boolean => {
  try {
    JSON.parse(value);
    return false;
  } catch {
    return true;
  }
};

/**
 * A ring's key set, for the signer (the oauth function): a missing secret or the stack's
 * placeholder is initialized once (the first writer wins, so all instances agree on one key), and
 * its public keys are published before the newest key signs anything (the verifiers read only
 * those). An initialized secret that does not hold this ring's key set fails, naming the secret,
 * and is left as it is.
 */
const readKeys = async (algorithm: SigningAlgorithm): Promise<LoadedKeys> => {
  const ring = RINGS[algorithm];
  const store = await secretStore();
  const [current, published] = await Promise.all([store.get(ring.secret), store.get(ring.publicSecret)]);
  const keySet = parseKeySet(
    algorithm,
    current !== undefined && !isPlaceholder(current)
      ? current
      : await store.initialize(
          ring.secret,
          await newSigningKeySet(algorithm),
          (value) => !isPlaceholder(value),
        ),
  );
  const [newest] = keySet.keys;
  if (!newest) throw new Error('The signing key set is empty');
  const jwks = keySet.keys.map((key) => key.publicJwk);
  if (!samePublicKeys(publicKeysIn(ring, published), jwks)) await publish(algorithm, jwks);
  return {
    keySet,
    signing: { algorithm, kid: newest.kid, key: createPrivateKey({ key: newest.privateJwk, format: 'jwk' }) },
    jwks,
    everSigned: [...jwks, ...(keySet.retiredPublicKeys ?? [])],
  };
};

/**
 * A ring's keys (created on first use), loaded once per cache period and shared by concurrent
 * callers (the private key imported once per load).
 */
const createdKeys = (algorithm: SigningAlgorithm): Promise<LoadedKeys> =>
  cachedLoad(loaded().rings, algorithm, () => readKeys(algorithm));

/** The key that signs with `algorithm` now (the ring is created on first use). */
export const currentSigningKey = async (algorithm: SigningAlgorithm = 'ES256'): Promise<SigningKey> =>
  (await createdKeys(algorithm)).signing;

const readExistingKey = async (algorithm: SigningAlgorithm): Promise<SigningKey> => {
  const ring = RINGS[algorithm];
  const value = await (await secretStore()).get(ring.secret);
  if (value === undefined || isPlaceholder(value))
    throw new Error(`${ring.secret} holds no key set yet: the oauth function creates it when it first signs`);
  const [newest] = parseKeySet(algorithm, value).keys;
  if (!newest) throw new Error('The signing key set is empty');
  return { algorithm, kid: newest.kid, key: createPrivateKey({ key: newest.privateJwk, format: 'jwk' }) };
};

/**
 * The key that signs with `algorithm` now, read from its key set alone and never created or
 * published: for the audit digest writer, whose role may read the key set and nothing more (one
 * read per cache period). Fails while the oauth function has not created the ring.
 */
export const existingSigningKey = (algorithm: SigningAlgorithm = 'ES256'): Promise<SigningKey> =>
  cachedLoad(loaded().readOnly, algorithm, () => readExistingKey(algorithm));

/** The rings' keys in one JWKS, the same object while each ring's keys are the same array. */
const jwksOf = (name: string, rings: (readonly JWK[] | undefined)[]) => {
  const state = loaded();
  const remembered = state.jwks.get(name);
  if (remembered?.of.every((ring, index) => ring === rings[index])) return remembered.jwks;
  const jwks = { keys: rings.flatMap((ring) => ring ?? []) };
  state.jwks.set(name, { of: rings, jwks });
  return jwks;
};

/** The JWKS applications verify the service's tokens with: every ring's keys, created if need be. */
export const publicJwks = async (): Promise<{ keys: JWK[] }> =>
  jwksOf(
    'signed with',
    (await Promise.all(SIGNING_ALGORITHMS.map(createdKeys))).map((ring) => ring.jwks),
  );

/** A ring's published public keys as last read, per store: what verifiers use. */
const publishedKeys = perStoreSettings(
  () => ({}) as Partial<Record<SigningAlgorithm, { expiresAt: number; keys: Promise<JWK[] | undefined> }>>,
);

const loadPublished = async (algorithm: SigningAlgorithm): Promise<JWK[] | undefined> => {
  const state = publishedKeys();
  const cached = state[algorithm];
  if (cached && Date.now() < cached.expiresAt) return cached.keys;
  const ring = RINGS[algorithm];
  const started = {
    expiresAt: Date.now() + CACHE_MILLIS,
    keys: secretStore().then(async (store) => publicKeysIn(ring, await store.get(ring.publicSecret))),
  };
  state[algorithm] = started;
  started.keys.then(
    (keys) => {
      // Not published yet (the oauth function publishes on first use): looked for again soon.
      if (!keys) started.expiresAt = Date.now() + MISSING_CACHE_MILLIS;
    },
    () => {
      if (state[algorithm] === started) delete state[algorithm];
    },
  );
  return started.keys;
};

/**
 * The keys the service verifies its own tokens with: the published public keys of `algorithms`'
 * rings (never the private key sets, so a function that verifies cannot sign), none created. The
 * same object while the keys are the same.
 */
export const verificationJwks = async (
  algorithms: readonly SigningAlgorithm[] = SIGNING_ALGORITHMS,
): Promise<{ keys: JWK[] }> =>
  jwksOf(`published ${algorithms.join()}`, await Promise.all(algorithms.map(loadPublished)));

/** Every ES256 public key the service signed with and still remembers: the audit digests' verifier's. */
export const everySigningPublicJwk = async (): Promise<{ keys: JWK[] }> => ({
  keys: (await createdKeys('ES256')).everSigned,
});

/**
 * Writes the ring's published public keys where the functions that only verify read them; this
 * instance's own verification reads them again.
 */
const publish = async (algorithm: SigningAlgorithm, jwks: JWK[]) => {
  await (await secretStore()).put(RINGS[algorithm].publicSecret, JSON.stringify({ keys: jwks }));
  delete publishedKeys()[algorithm];
};

const samePublicKeys = (published: JWK[] | undefined, jwks: JWK[]) =>
  published !== undefined &&
  published.length === jwks.length &&
  published.every((key, index) => key.kid === jwks[index]?.kid);

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
  const keySet: SigningKeySet = {
    keys: [fresh, ...kept],
    ...(retiredPublicKeys ? { retiredPublicKeys } : {}),
  };
  await store.put(ring.secret, JSON.stringify(keySet));
  await publish(
    algorithm,
    keySet.keys.map((key) => key.publicJwk),
  );
  delete loaded().rings[algorithm];
  return fresh.kid;
};

/**
 * Puts a new key in front of every ring and retires the current ones. A retired key stays
 * published while a token it signed can still be valid: `retainMillis` after its retirement
 * (the longest a token it signed is taken: an access token's lifetime, or an ID token's as a
 * logout hint), plus the time other instances may keep signing with it from their cache.
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
