import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../support/temp-dir.js';

const HOUR = 3_600_000;
const newDataDirectory = useTempDirs('keys');

beforeAll(() => {
  process.env.IDP_SECRET_STORE = 'file';
  process.env.IDP_DATA_DIR = newDataDirectory();
});

describe('signing key rotation', () => {
  it('signs with the newest key and keeps retired keys published while their tokens can be valid', async () => {
    const { currentSigningKey, publicJwks, rotateSigningKeys } = await import(
      '../../shared/auth/signing-keys.js'
    );
    const first = (await currentSigningKey()).kid;
    const start = Date.now();
    const second = await rotateSigningKeys(HOUR, start);
    expect((await currentSigningKey()).kid).toBe(second);
    // Two rotations within one token lifetime: the first key's tokens are still valid, keep it.
    const third = await rotateSigningKeys(HOUR, start + HOUR / 2);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([third, second, first]);
    // Long after: only keys retired within a lifetime (plus cache time) remain.
    const fourth = await rotateSigningKeys(HOUR, start + 3 * HOUR);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([fourth, third]);
    // The dropped keys' public halves stay for the audit digests they signed; never a private one.
    const { everySigningPublicJwk } = await import('../../shared/auth/signing-keys.js');
    const everSigned = (await everySigningPublicJwk()).keys;
    expect(everSigned.map((key) => key.kid)).toEqual([fourth, third, second, first]);
    expect(everSigned.filter((key) => 'd' in key)).toEqual([]);
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    const stored = JSON.parse(
      (await new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`).get('signing-keys')) ?? '{}',
    ) as { keys: unknown[]; retiredPublicKeys: { kid: string; d?: string }[] };
    expect(stored.retiredPublicKeys.map((key) => key.kid)).toEqual([second, first]);
    expect(stored.retiredPublicKeys.some((key) => key.d !== undefined)).toBe(false);
  });
});

describe('a signing key secret that does not hold a key set', () => {
  it('fails naming the secret instead of signing or publishing anything', async () => {
    vi.resetModules();
    process.env.IDP_DATA_DIR = newDataDirectory();
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    await new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`).put(
      'signing-keys',
      '{"keys": [{"kid": 1}]}',
    );
    const { currentSigningKey, publicJwks } = await import('../../shared/auth/signing-keys.js');
    const problem = 'The secret "signing-keys" does not hold a signing key set';
    await expect(publicJwks()).rejects.toThrow(problem);
    await expect(currentSigningKey()).rejects.toThrow(problem);
  });
});
