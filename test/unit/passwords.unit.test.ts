import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acceptableParameters,
  DEFAULT_SCRYPT,
  encodePasswordHash,
  hashPassword,
  needsRehash,
  parsePasswordHash,
  SCRYPT_CEILING,
  SCRYPT_FLOOR,
  type ScryptParameters,
  verifyPassword,
} from '../../shared/auth/passwords.js';
import { parseConfig } from '../../shared/config.js';

/**
 * Password hashes: the stored format read strictly, the floor and ceiling of parameters, and when a
 * hash is replaced. Refusals start from the same record done right (it verifies).
 */

const PASSWORD = 'correct horse battery staple';
const SALT = Buffer.from('0123456789abcdef');

/**
 * A record of `password` as the service writes it (NFKC, or as typed as it wrote before), with
 * these parameters and hash length.
 */
const recordOf = (parameters: ScryptParameters, length = 32, password = PASSWORD, normalized = true) => {
  const { N, r, p } = parameters;
  const hash = scryptSync(password, SALT, length, { N, r, p, maxmem: 512 * 1024 * 1024 });
  return encodePasswordHash({ parameters, salt: SALT, hash, normalized });
};

/** The fields of a record, to change one at a time. */
const fieldsOf = (record: string) => record.split('$');
const withField = (record: string, index: number, value: string) => {
  const fields = fieldsOf(record);
  fields[index] = value;
  return fields.join('$');
};

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** 32 bytes in base64: the last character before `=` carries 4 bits and 2 that must be zero. */
const withTrailingBit = (hash: string) => {
  const last = BASE64.indexOf(hash.at(-2) as string);
  const respelled = `${hash.slice(0, -2)}${BASE64[last | 1]}=`;
  expect(Buffer.from(respelled, 'base64')).toEqual(Buffer.from(hash, 'base64'));
  return respelled;
};

describe('the parameters', () => {
  it('defaults to OWASP minimum for scrypt, N=2^17, r=8, p=1', () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const deployed = parseConfig({ IDP_TABLE_NAME: 'idp', IDP_ISSUER: 'https://id.example.com' });
    expect(deployed.passwordScryptLog2N).toBe(17);
  });

  it('takes IDP_PASSWORD_SCRYPT_LOG2_N from 15 (the floor) to 18 (the ceiling) only', () => {
    const env = (value: string) => ({
      IDP_TABLE_NAME: 'idp',
      IDP_ISSUER: 'https://id.example.com',
      IDP_PASSWORD_SCRYPT_LOG2_N: value,
    });
    expect(parseConfig(env('15')).passwordScryptLog2N).toBe(15);
    expect(parseConfig(env('18')).passwordScryptLog2N).toBe(18);
    expect(() => parseConfig(env('14'))).toThrow('IDP_PASSWORD_SCRYPT_LOG2_N');
    expect(() => parseConfig(env('19'))).toThrow('IDP_PASSWORD_SCRYPT_LOG2_N');
  });

  it('hashes and verifies with the default parameters (128 MiB: within what maxmem allows)', async () => {
    const stored = await hashPassword(PASSWORD, DEFAULT_SCRYPT);
    expect(stored).toMatch(/^scrypt-nfkc\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    expect(await verifyPassword('not the password', stored)).toBe(false);
  });

  it('accepts the floor and the ceiling, and nothing outside them', () => {
    expect(acceptableParameters(SCRYPT_FLOOR)).toBe(true);
    expect(acceptableParameters(DEFAULT_SCRYPT)).toBe(true);
    expect(acceptableParameters(SCRYPT_CEILING)).toBe(true);
    for (const outside of [
      { ...SCRYPT_FLOOR, N: 2 ** 14 },
      { ...SCRYPT_FLOOR, r: 4 },
      { ...SCRYPT_FLOOR, p: 0 },
      { ...SCRYPT_FLOOR, N: 3 * 2 ** 14 },
      { ...SCRYPT_CEILING, N: 2 ** 19 },
      { ...SCRYPT_CEILING, r: 16 },
      { ...SCRYPT_CEILING, p: 5 },
    ]) {
      expect(acceptableParameters(outside), JSON.stringify(outside)).toBe(false);
    }
  });
});

describe('a stored hash', () => {
  it('reads back what is written', () => {
    const record = recordOf(SCRYPT_FLOOR);
    expect(parsePasswordHash(record)).toEqual({
      parameters: SCRYPT_FLOOR,
      salt: SALT,
      hash: scryptSync(PASSWORD, SALT, 32, { ...SCRYPT_FLOOR, maxmem: 64 * 1024 * 1024 }),
      normalized: true,
    });
    expect(parsePasswordHash(recordOf(SCRYPT_FLOOR, 32, PASSWORD, false))?.normalized).toBe(false);
  });

  it('verifies below the current parameters down to the floor (N=2^15: existing people sign in)', async () => {
    expect(await verifyPassword(PASSWORD, recordOf(SCRYPT_FLOOR))).toBe(true);
    expect(await verifyPassword('not the password', recordOf(SCRYPT_FLOOR))).toBe(false);
  });

  it('never verifies below the floor, even with the right password', async () => {
    expect(await verifyPassword(PASSWORD, recordOf({ ...SCRYPT_FLOOR, N: 2 ** 14 }))).toBe(false);
    expect(await verifyPassword(PASSWORD, recordOf({ ...SCRYPT_FLOOR, r: 4 }))).toBe(false);
    expect(await verifyPassword(PASSWORD, recordOf({ N: 2, r: 1, p: 1 }))).toBe(false);
  });

  it('never verifies above the ceiling (a record must not make one check take gigabytes)', async () => {
    const record = recordOf(SCRYPT_FLOOR);
    expect(await verifyPassword(PASSWORD, withField(record, 1, String(2 ** 22)))).toBe(false);
    expect(await verifyPassword(PASSWORD, withField(record, 3, '64'))).toBe(false);
  });

  it('never verifies a hash of another length than 32 bytes, even the right one of that length', async () => {
    expect(await verifyPassword(PASSWORD, recordOf(SCRYPT_FLOOR, 32))).toBe(true);
    expect(await verifyPassword(PASSWORD, recordOf(SCRYPT_FLOOR, 31))).toBe(false);
    expect(await verifyPassword(PASSWORD, recordOf(SCRYPT_FLOOR, 16))).toBe(false);
    expect(await verifyPassword(PASSWORD, recordOf(SCRYPT_FLOOR, 64))).toBe(false);
  });

  it('never lets an empty (or undecodable) hash accept any password', async () => {
    const record = recordOf(SCRYPT_FLOOR);
    expect(await verifyPassword(PASSWORD, record)).toBe(true);
    // Before: a hash decoding to no bytes compared 0 derived bytes with 0 stored ones, and matched.
    for (const emptyHash of ['', '=', '!!!!', '====']) {
      const attack = withField(record, 5, emptyHash);
      expect(await verifyPassword('any password at all', attack), attack).toBe(false);
      expect(await verifyPassword('', attack), attack).toBe(false);
    }
    expect(await verifyPassword('anything', '')).toBe(false);
  });

  it('never verifies a malformed record, even with the right password', async () => {
    const record = recordOf(SCRYPT_FLOOR);
    const [, , , , salt = '', hash = ''] = fieldsOf(record);
    expect(await verifyPassword(PASSWORD, record)).toBe(true);
    for (const malformed of [
      withField(record, 0, 'Scrypt'),
      withField(record, 0, 'bcrypt'),
      withField(record, 0, 'scrypt-nfc'),
      withField(record, 0, 'scrypt-NFKC'),
      `${record}$extra`,
      fieldsOf(record).slice(0, 5).join('$'),
      withField(record, 1, '032768'),
      withField(record, 1, '32768.0'),
      withField(record, 1, '0x8000'),
      withField(record, 2, ''),
      // Base64 not as written: no padding, URL-safe, whitespace, non-zero trailing bits.
      withField(record, 5, hash.replace(/=+$/, '')),
      withField(record, 5, ` ${hash}`),
      withField(record, 5, withTrailingBit(hash)),
      withField(record, 4, Buffer.from(salt, 'base64').toString('base64url')),
    ]) {
      expect(await verifyPassword(PASSWORD, malformed), malformed).toBe(false);
    }
  });

  it('never verifies a record with a salt shorter than 16 bytes, though its hash is right', async () => {
    const salt = Buffer.from('fifteen bytes!!');
    const hash = scryptSync(PASSWORD, salt, 32, { ...SCRYPT_FLOOR, maxmem: 64 * 1024 * 1024 });
    const shortSalt = encodePasswordHash({ parameters: SCRYPT_FLOOR, salt, hash, normalized: true });
    expect(parsePasswordHash(shortSalt)).toBeUndefined();
    expect(await verifyPassword(PASSWORD, shortSalt)).toBe(false);
  });
});

describe('needsRehash', () => {
  it('replaces a hash of weaker parameters than the current ones, and only those', () => {
    expect(needsRehash(recordOf(SCRYPT_FLOOR), DEFAULT_SCRYPT)).toBe(true);
    expect(needsRehash(recordOf(SCRYPT_FLOOR), SCRYPT_FLOOR)).toBe(false);
    expect(needsRehash(withField(recordOf(SCRYPT_FLOOR), 1, String(2 ** 17)), DEFAULT_SCRYPT)).toBe(false);
    expect(needsRehash(withField(recordOf(SCRYPT_FLOOR), 1, String(2 ** 18)), DEFAULT_SCRYPT)).toBe(false);
    expect(needsRehash(withField(recordOf(SCRYPT_FLOOR), 3, '2'), { ...SCRYPT_FLOOR, p: 4 })).toBe(true);
    expect(needsRehash(recordOf(SCRYPT_FLOOR), { ...SCRYPT_FLOOR, r: 16 })).toBe(true);
    expect(needsRehash('not a hash', DEFAULT_SCRYPT)).toBe(false);
  });

  it('replaces a hash of the password as typed, whatever its parameters', () => {
    expect(needsRehash(recordOf(SCRYPT_FLOOR), SCRYPT_FLOOR)).toBe(false);
    expect(needsRehash(recordOf(SCRYPT_FLOOR, 32, PASSWORD, false), SCRYPT_FLOOR)).toBe(true);
  });
});

describe('Unicode in passwords (NIST SP 800-63B 5.1.1.2: normalized before hashing)', () => {
  // One password, as different keyboards and systems send it: composed (NFC), decomposed (NFD),
  // and full-width forms that NFKC folds.
  const COMPOSED = 'Crème brûlée à Zürich';
  const DECOMPOSED = COMPOSED.normalize('NFD');
  const FULL_WIDTH = 'ｃｏｒｒｅｃｔ horse battery staple';

  it('verifies a password however its characters were composed', async () => {
    expect(DECOMPOSED).not.toBe(COMPOSED);
    const stored = await hashPassword(COMPOSED, SCRYPT_FLOOR);
    expect(await verifyPassword(COMPOSED, stored)).toBe(true);
    expect(await verifyPassword(DECOMPOSED, stored)).toBe(true);
    expect(await verifyPassword(DECOMPOSED, await hashPassword(DECOMPOSED, SCRYPT_FLOOR))).toBe(true);
    expect(await verifyPassword(COMPOSED, await hashPassword(DECOMPOSED, SCRYPT_FLOOR))).toBe(true);
    expect(await verifyPassword(PASSWORD, await hashPassword(FULL_WIDTH, SCRYPT_FLOOR))).toBe(true);
    // Positive control of the refusal: another password is still another.
    expect(await verifyPassword('Creme brulee a Zurich', stored)).toBe(false);
  });

  it('verifies a hash written before as the password was typed, and only so', async () => {
    const asTyped = recordOf(SCRYPT_FLOOR, 32, DECOMPOSED, false);
    expect(await verifyPassword(DECOMPOSED, asTyped)).toBe(true);
    expect(await verifyPassword(COMPOSED, asTyped)).toBe(false);
  });
});
