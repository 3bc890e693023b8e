import {
  createPrivateKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
  randomUUID,
} from 'node:crypto';
import { perStoreSettings } from '../config.js';
import { logger } from '../http/logger.js';
import * as z from '../zod.js';
import { secretStore } from './secret-store.js';

export const SIGNING_ALGORITHM = 'ES256';
const SIGNING_KEYS_SECRET = 'signing-keys';
/** Keys are re-read this often, so a rotation reaches every instance within this time. */
const CACHE_MILLIS = 5 * 60 * 1000;

type JWK = JsonWebKey & { kid?: string; alg?: string; use?: string };

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

const storedKeySet = z.object({
  keys: z
    .array(
      z.object({
        kid: z.string().check(z.minLength(1)),
        createdAt: z.number(),
        retiredAt: z.optional(z.number()),
        privateJwk: z.looseObject({ kty: z.literal('EC') }),
        publicJwk: z.looseObject({ kty: z.literal('EC') }),
      }),
    )
    .check(z.minLength(1)),
  retiredPublicKeys: z.optional(z.array(z.looseObject({ kty: z.literal('EC') }))),
});

const keySetIn = (value: string) => {
  try {
    return storedKeySet.safeParse(JSON.parse(value));
  } catch {
    return undefined;
  }
};

/** A real key set, as opposed to the placeholder the stack creates the secret with. */
const isKeySet = (value: string): boolean => keySetIn(value)?.success === true;

/** The key set a secret holds; anything else fails naming the secret, since no token can be signed. */
const parseKeySet = (value: string): SigningKeySet => {
  const parsed = keySetIn(value);
  if (!parsed?.success) {
    const problem = `The secret "${SIGNING_KEYS_SECRET}" does not hold a signing key set ({"keys": [...]} of EC keys)`;
    logger.error(problem);
    throw new Error(problem);
  }
  return parsed.data as SigningKeySet;
};

const newSigningKey = (now: number): StoredSigningKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomUUID();
  return {
    kid,
    createdAt: now,
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: SIGNING_ALGORITHM },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: SIGNING_ALGORITHM, use: 'sig' },
  };
};

interface LoadedKeys {
  keySet: SigningKeySet;
  signing: { kid: string; key: KeyObject };
  /** The published keys: one object per load, so a verifier can tell when they changed. */
  jwks: { keys: JWK[] };
  /** The published keys and the retired ones: what the audit digests are verified with. */
  everSigned: { keys: JWK[] };
}

/** The keys as last loaded, per store (the CLI and tests re-point it). */
const loaded = perStoreSettings(() => ({
  cached: undefined as { loadedAt: number; keys: Promise<LoadedKeys> } | undefined,
}));

/**
 * The key set, created on first use (first writer wins, so all instances agree on one key). The
 * load is shared by concurrent callers and the private key is imported once per load.
 */
const loadKeys = (): Promise<LoadedKeys> => {
  const state = loaded();
  const { cached } = state;
  if (cached && Date.now() - cached.loadedAt < CACHE_MILLIS) return cached.keys;
  const keys = (async () => {
    const store = await secretStore();
    const current = await store.get(SIGNING_KEYS_SECRET);
    // A missing secret or the stack's placeholder is initialized once (the first writer wins);
    // an initialized secret that no longer parses fails, naming the secret.
    const keySet = parseKeySet(
      current !== undefined && isKeySet(current)
        ? current
        : await store.initialize(
            SIGNING_KEYS_SECRET,
            JSON.stringify({ keys: [newSigningKey(Date.now())] } satisfies SigningKeySet),
            isKeySet,
          ),
    );
    const [newest] = keySet.keys;
    if (!newest) throw new Error('The signing key set is empty');
    return {
      keySet,
      signing: { kid: newest.kid, key: createPrivateKey({ key: newest.privateJwk, format: 'jwk' }) },
      jwks: { keys: keySet.keys.map((key) => key.publicJwk) },
      everSigned: { keys: [...keySet.keys.map((key) => key.publicJwk), ...(keySet.retiredPublicKeys ?? [])] },
    };
  })();
  keys.catch(() => {
    state.cached = undefined;
  });
  state.cached = { loadedAt: Date.now(), keys };
  return keys;
};

export const currentSigningKey = async () => (await loadKeys()).signing;

/** The JWKS: what applications verify the service's tokens with, and what it verifies its own with. */
export const publicJwks = async (): Promise<{ keys: JWK[] }> => (await loadKeys()).jwks;

/** Every public key the service signed with and still remembers: the audit digests' verifier's. */
export const everySigningPublicJwk = async (): Promise<{ keys: JWK[] }> => (await loadKeys()).everSigned;

/**
 * Puts a new signing key in front and retires the current one. A retired key stays published
 * while a token it signed can still be valid: `retainMillis` (the token lifetime) after its
 * retirement, plus the time other instances may keep signing with it from their cache.
 */
export const rotateSigningKeys = async (retainMillis: number, now = Date.now()): Promise<string> => {
  const store = await secretStore();
  const stored = await store.get(SIGNING_KEYS_SECRET);
  const current = stored !== undefined && isKeySet(stored) ? parseKeySet(stored) : (await loadKeys()).keySet;
  const fresh = newSigningKey(now);
  const retired = current.keys.map((key) => ({ ...key, retiredAt: key.retiredAt ?? now }));
  const kept = retired.filter((key) => now - key.retiredAt < retainMillis + CACHE_MILLIS);
  const dropped = retired.filter((key) => !kept.includes(key)).map((key) => key.publicJwk);
  const retiredPublicKeys = [...dropped, ...(current.retiredPublicKeys ?? [])].slice(
    0,
    MAX_RETIRED_PUBLIC_KEYS,
  );
  await store.put(
    SIGNING_KEYS_SECRET,
    JSON.stringify({ keys: [fresh, ...kept], retiredPublicKeys } satisfies SigningKeySet),
  );
  loaded().cached = undefined;
  return fresh.kid;
};
