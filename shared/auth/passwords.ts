import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { config } from '../config.js';
import { normalizedPassword } from '../domain/password-normalization.js';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptParameters & { maxmem: number },
) => Promise<Buffer>;

/**
 * Password hashes: scrypt, stored as `scrypt-nfkc$N$r$p$salt$hash` (salt and hash in base64), so
 * the parameters travel with the hash and can be raised later: a hash of weaker parameters than
 * the current ones is replaced at the person's next successful sign-in. The password is hashed in
 * Unicode NFKC (NIST SP 800-63B 5.1.1.2): `é` typed as one character or as `e` and an accent (as
 * some keyboards and systems send it) is the same password. A `scrypt$…` hash, written before,
 * is of the password as typed; it is replaced the same way.
 */

export interface ScryptParameters {
  /** CPU and memory cost, a power of two. */
  N: number;
  /** Block size. */
  r: number;
  /** Parallelism. */
  p: number;
}

/** OWASP Password Storage Cheat Sheet's minimum for scrypt (128 MiB a hash): the default. */
export const DEFAULT_SCRYPT: ScryptParameters = { N: 2 ** 17, r: 8, p: 1 };

/**
 * The weakest parameters a stored hash may have and still verify: those this service hashed with
 * before (N=2^15, 32 MiB), so the people they belong to can sign in once more and get rehashed.
 * Anything cheaper (a record written by hand, a tampered one) never verifies.
 */
export const SCRYPT_FLOOR: ScryptParameters = { N: 2 ** 15, r: 8, p: 1 };

/**
 * The most a stored hash may ask for: one verification then takes 256 MiB (the functions have
 * 1024 MB) and four times a current hash's CPU. A record asking for more never verifies.
 */
export const SCRYPT_CEILING: ScryptParameters = { N: 2 ** 18, r: 8, p: 4 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** The memory OpenSSL's scrypt asks for (its own check, which Node's `maxmem` must allow). */
const memoryBytes = ({ N, r, p }: ScryptParameters) => 128 * r * (N + p + 2);

/** Within the floor and the ceiling: a stored hash of any other parameters never verifies. */
export const acceptableParameters = ({ N, r, p }: ScryptParameters): boolean =>
  (N & (N - 1)) === 0 &&
  N >= SCRYPT_FLOOR.N &&
  N <= SCRYPT_CEILING.N &&
  r >= SCRYPT_FLOOR.r &&
  r <= SCRYPT_CEILING.r &&
  p >= SCRYPT_FLOOR.p &&
  p <= SCRYPT_CEILING.p;

export interface PasswordHash {
  parameters: ScryptParameters;
  salt: Buffer;
  hash: Buffer;
  /** Whether the password was hashed in NFKC; those written before were hashed as typed. */
  normalized: boolean;
}

const SCHEME = { normalized: 'scrypt-nfkc', asTyped: 'scrypt' } as const;

export const encodePasswordHash = ({
  parameters: { N, r, p },
  salt,
  hash,
  normalized,
}: PasswordHash): string =>
  [
    normalized ? SCHEME.normalized : SCHEME.asTyped,
    N,
    r,
    p,
    salt.toString('base64'),
    hash.toString('base64'),
  ].join('$');

const DECIMAL = /^[1-9]\d{0,9}$/;

/** Base64 exactly as `Buffer.toString('base64')` writes it (no stray characters, padding or bits). */
const canonicalBase64 = (text: string): Buffer | undefined => {
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
};

/** A stored record read strictly: undefined unless it is exactly what `encodePasswordHash` writes. */
export const parsePasswordHash = (stored: string): PasswordHash | undefined => {
  const [scheme, N, r, p, salt, hash, ...rest] = stored.split('$');
  const normalized = scheme === SCHEME.normalized;
  if (!normalized && scheme !== SCHEME.asTyped) return undefined;
  if (rest.length > 0 || !N || !r || !p || !salt || !hash) return undefined;
  if (![N, r, p].every((value) => DECIMAL.test(value))) return undefined;
  const saltBytes = canonicalBase64(salt);
  const hashBytes = canonicalBase64(hash);
  if (!saltBytes || saltBytes.length < SALT_BYTES || hashBytes?.length !== HASH_BYTES) return undefined;
  return {
    parameters: { N: Number(N), r: Number(r), p: Number(p) },
    salt: saltBytes,
    hash: hashBytes,
    normalized,
  };
};

const derive = (password: string, salt: Buffer, parameters: ScryptParameters) =>
  scryptAsync(password, salt, HASH_BYTES, { ...parameters, maxmem: memoryBytes(parameters) });

/** The parameters new hashes get: `IDP_PASSWORD_SCRYPT_LOG2_N` (docs/operating.md, "Configuration"), r=8, p=1. */
export const currentScrypt = (): ScryptParameters => ({
  ...DEFAULT_SCRYPT,
  N: 2 ** config().passwordScryptLog2N,
});

export const hashPassword = async (password: string, parameters = currentScrypt()): Promise<string> => {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(normalizedPassword(password), salt, parameters);
  return encodePasswordHash({ parameters, salt, hash, normalized: true });
};

/**
 * A hash of no password, in `parameters`: random bytes where the derivation would be, so checking
 * any password against it costs one derivation, while making it costs none.
 */
export const unguessablePasswordHash = (parameters = currentScrypt()): string =>
  encodePasswordHash({
    parameters,
    salt: randomBytes(SALT_BYTES),
    hash: randomBytes(HASH_BYTES),
    normalized: true,
  });

/**
 * Whether the password is the one of the stored hash. A record that does not parse, or whose
 * parameters are below the floor (or above the ceiling), never verifies, whatever the password.
 */
export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const parsed = parsePasswordHash(stored);
  if (!parsed || !acceptableParameters(parsed.parameters)) return false;
  const actual = await derive(
    parsed.normalized ? normalizedPassword(password) : password,
    parsed.salt,
    parsed.parameters,
  );
  return timingSafeEqual(actual, parsed.hash);
};

/**
 * Whether a (verified) stored hash is to be replaced: of weaker parameters than `current`, or of
 * the password as typed rather than normalized.
 */
export const needsRehash = (stored: string, current = currentScrypt()): boolean => {
  const parsed = parsePasswordHash(stored);
  return parsed !== undefined && (!parsed.normalized || weaker(parsed.parameters, current));
};

const weaker = (parameters: ScryptParameters, current: ScryptParameters) =>
  parameters.N < current.N || parameters.r < current.r || parameters.p < current.p;

/**
 * Whether checking a password against the stored hash costs less than against a current one:
 * a refusal then waits out the difference, so that it does not tell the hash is old.
 */
export const cheaperToCheck = (stored: string, current = currentScrypt()): boolean => {
  const parameters = parsePasswordHash(stored)?.parameters;
  return parameters !== undefined && weaker(parameters, current);
};
