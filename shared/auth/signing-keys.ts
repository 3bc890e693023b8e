import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { secretStore } from './secret-store.js';

export const SIGNING_ALGORITHM = 'ES256';
const SIGNING_KEYS_SECRET = 'signing-keys';
/** Keys are re-read this often, so a rotation reaches every instance within this time. */
const CACHE_MILLIS = 5 * 60 * 1000;

interface StoredSigningKey {
  kid: string;
  createdAt: number;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Newest first: the first key signs, all of them verify (kept until their tokens expire). */
interface SigningKeySet {
  keys: StoredSigningKey[];
}

const isKeySet = (value: string): boolean => {
  try {
    const parsed = JSON.parse(value) as Partial<SigningKeySet>;
    return Array.isArray(parsed.keys) && parsed.keys.length > 0;
  } catch {
    return false;
  }
};

const newSigningKey = async (now: number): Promise<StoredSigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
  const kid = randomUUID();
  return {
    kid,
    createdAt: now,
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALGORITHM },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
};

let cached: { loadedAt: number; keySet: SigningKeySet } | undefined;

/** The key set, created on first use (first writer wins, so all instances agree on one key). */
const loadKeySet = async (): Promise<SigningKeySet> => {
  if (cached && Date.now() - cached.loadedAt < CACHE_MILLIS) return cached.keySet;
  const store = await secretStore();
  const initial = JSON.stringify({ keys: [await newSigningKey(Date.now())] } satisfies SigningKeySet);
  const keySet = JSON.parse(await store.initialize(SIGNING_KEYS_SECRET, initial, isKeySet)) as SigningKeySet;
  cached = { loadedAt: Date.now(), keySet };
  return keySet;
};

export const currentSigningKey = async () => {
  const [newest] = (await loadKeySet()).keys;
  if (!newest) throw new Error('The signing key set is empty');
  return { kid: newest.kid, key: await importJWK(newest.privateJwk, SIGNING_ALGORITHM) };
};

export const publicJwks = async (): Promise<{ keys: JWK[] }> => ({
  keys: (await loadKeySet()).keys.map((key) => key.publicJwk),
});

/**
 * Puts a new signing key in front. Keys older than `retainMillis` (the longest token lifetime)
 * beyond the previous one are dropped: no unexpired token can carry their signature.
 */
export const rotateSigningKeys = async (retainMillis: number, now = Date.now()): Promise<string> => {
  const store = await secretStore();
  const current = await loadKeySet();
  const fresh = await newSigningKey(now);
  const [previous, ...older] = current.keys;
  const kept = older.filter((key) => now - key.createdAt < retainMillis);
  const keySet: SigningKeySet = { keys: [fresh, ...(previous ? [previous] : []), ...kept] };
  await store.put(SIGNING_KEYS_SECRET, JSON.stringify(keySet));
  cached = { loadedAt: now, keySet };
  return fresh.kid;
};
