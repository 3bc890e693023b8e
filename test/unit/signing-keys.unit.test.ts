import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeSecretsManager } from '../support/fake-secrets-manager.js';
import { useTempDirs } from '../support/temp-dir.js';

const HOUR = 3_600_000;

/** A key set of one RSA key of `bits`, its JWKs labelled `alg` (2048 and RS256: a good one). */
const rsaKeySet = (bits: number, alg = 'RS256') => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const kid = `rsa-${bits}`;
  return JSON.stringify({
    keys: [
      {
        kid,
        createdAt: 0,
        privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg },
        publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
      },
    ],
  });
};
const newDataDirectory = useTempDirs('keys');

beforeAll(() => {
  process.env.IDP_SECRET_STORE = 'file';
  process.env.IDP_DATA_DIR = newDataDirectory();
});

describe('signing key rotation', () => {
  it('signs with the newest key and keeps retired keys published while their tokens can be valid', async () => {
    const { currentSigningKey, publicJwks, rotateSigningKeys, verificationJwks } = await import(
      '../../shared/auth/signing-keys.js'
    );
    const first = (await currentSigningKey()).kid;
    const start = Date.now();
    const firstRs256 = (await currentSigningKey('RS256')).kid;
    const second = await rotateSigningKeys(HOUR, start);
    expect((await currentSigningKey()).kid).toBe(second.ES256);
    expect((await currentSigningKey('RS256')).kid).toBe(second.RS256);
    // Two rotations within one token lifetime: the first key's tokens are still valid, keep it.
    const third = await rotateSigningKeys(HOUR, start + HOUR / 2);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([
      ...[third.RS256, second.RS256, firstRs256],
      ...[third.ES256, second.ES256, first],
    ]);
    // Long after: only keys retired within a lifetime (plus cache time) remain.
    const fourth = await rotateSigningKeys(HOUR, start + 3 * HOUR);
    expect((await publicJwks()).keys.map((key) => key.kid)).toEqual([
      ...[fourth.RS256, third.RS256],
      ...[fourth.ES256, third.ES256],
    ]);
    // Published as rotated, public halves only, for the functions that verify and cannot sign.
    const verifying = (await verificationJwks()).keys;
    expect(verifying.map((key) => key.kid)).toEqual([fourth.RS256, third.RS256, fourth.ES256, third.ES256]);
    expect(verifying.filter((key) => 'd' in key)).toEqual([]);
    // The dropped keys' public halves stay for the audit digests they signed; never a private one.
    const { everySigningPublicJwk } = await import('../../shared/auth/signing-keys.js');
    const everSigned = (await everySigningPublicJwk()).keys;
    expect(everSigned.map((key) => key.kid)).toEqual([fourth.ES256, third.ES256, second.ES256, first]);
    expect(everSigned.filter((key) => 'd' in key)).toEqual([]);
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    const stored = JSON.parse(
      (await new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`).get('signing-keys')) ?? '{}',
    ) as { keys: unknown[]; retiredPublicKeys: { kid: string; d?: string }[] };
    expect(stored.retiredPublicKeys.map((key) => key.kid)).toEqual([second.ES256, first]);
    expect(stored.retiredPublicKeys.some((key) => key.d !== undefined)).toBe(false);
    // RS256 signs ID tokens only: a dropped key has nothing left to verify.
    const storedRs256 = JSON.parse(
      (await new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`).get('signing-keys-rs256')) ?? '{}',
    ) as { retiredPublicKeys?: unknown };
    expect(storedRs256.retiredPublicKeys).toBeUndefined();
  });
});

describe('a deployment that signed with ES256 alone', () => {
  it('keeps its key, published once the oauth function runs; a function that only verifies sees it within 10 s', async () => {
    vi.resetModules();
    process.env.IDP_DATA_DIR = newDataDirectory();
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    const store = new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`);
    const { newSigningKeySet, publicJwks, verificationJwks } = await import(
      '../../shared/auth/signing-keys.js'
    );
    const kidOf = (keySet: string) => (JSON.parse(keySet) as { keys: { kid: string }[] }).keys[0]?.kid;
    const esKeys = await newSigningKeySet('ES256');
    await store.put('signing-keys', esKeys);
    const kids = async () => (await verificationJwks()).keys.map((key) => key.kid);
    // A function that only verifies (signin, scim) reads the published keys alone, never the key
    // set, and creates nothing: none are published yet.
    expect(await kids()).toEqual([]);
    expect(await store.get('signing-keys-rs256')).toBeUndefined();
    // The oauth function (another instance) publishes the ES256 key and creates the RS256 ring:
    // looked for again after 10 s, not at every request anyone can send.
    vi.resetModules();
    const signer = await import('../../shared/auth/signing-keys.js');
    const published = (await signer.publicJwks()).keys.map((key) => key.kid);
    const rsKid = published[0];
    expect(published).toEqual([rsKid, kidOf(esKeys)]);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      expect(await kids()).toEqual([]);
      vi.setSystemTime(Date.now() + 10_000);
      expect(await kids()).toEqual([rsKid, kidOf(esKeys)]);
    } finally {
      vi.useRealTimers();
    }
    // The JWKS publishes the same keys: nothing new was created over them.
    expect((await publicJwks()).keys.map((key) => [key.kid, key.kty, key.alg])).toEqual([
      [rsKid, 'RSA', 'RS256'],
      [kidOf(esKeys), 'EC', 'ES256'],
    ]);
  });

  it('publishes an RS256 ring it creates at once, to verification in the same instance too', async () => {
    vi.resetModules();
    process.env.IDP_DATA_DIR = newDataDirectory();
    const { publicJwks, verificationJwks, currentSigningKey } = await import(
      '../../shared/auth/signing-keys.js'
    );
    await currentSigningKey('ES256');
    expect((await verificationJwks()).keys.map((key) => key.alg)).toEqual(['ES256']);
    expect((await publicJwks()).keys.map((key) => key.alg)).toEqual(['RS256', 'ES256']);
    expect((await verificationJwks()).keys.map((key) => key.alg)).toEqual(['RS256', 'ES256']);
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

  it.each([
    ['an RSA key of 1024 bits', 'signing-keys-rs256', 'RS256', () => rsaKeySet(1024)],
    [
      'an RSA key labelled for another algorithm',
      'signing-keys-rs256',
      'RS256',
      () => rsaKeySet(2048, 'RS512'),
    ],
  ])('refuses %s, naming the secret', async (_case, secret, algorithm, keySet) => {
    vi.resetModules();
    process.env.IDP_DATA_DIR = newDataDirectory();
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    const { currentSigningKey } = await import('../../shared/auth/signing-keys.js');
    await new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`).put(secret, keySet());
    await expect(currentSigningKey(algorithm as 'RS256')).rejects.toThrow(
      `The secret "${secret}" does not hold a signing key set`,
    );
  });

  it('refuses keys of the other type in a ring, naming its secret', async () => {
    vi.resetModules();
    process.env.IDP_DATA_DIR = newDataDirectory();
    const { FileSecretStore } = await import('../../shared/auth/file-secret-store.js');
    const { currentSigningKey, newSigningKeySet } = await import('../../shared/auth/signing-keys.js');
    const store = new FileSecretStore(`${process.env.IDP_DATA_DIR}/secrets`);
    // Positive control: the ES256 key set in its own secret signs.
    const es256Keys = await newSigningKeySet('ES256');
    await store.put('signing-keys', es256Keys);
    expect((await currentSigningKey('ES256')).algorithm).toBe('ES256');
    await store.put('signing-keys-rs256', es256Keys);
    await expect(currentSigningKey('RS256')).rejects.toThrow(
      'The secret "signing-keys-rs256" does not hold a signing key set ({"keys": [...]} of RS256 keys)',
    );
  });
});

describe('a signing key secret in Secrets Manager (the SDK client against a stand-in of its API)', () => {
  it("replaces the stack's placeholder with a key set, and leaves a key set of the other type as it is, naming it", async () => {
    const fake = await startFakeSecretsManager();
    const before = { ...process.env };
    try {
      vi.resetModules();
      Object.assign(process.env, {
        IDP_SECRET_STORE: 'aws',
        IDP_SECRET_PREFIX: 'idp/',
        IDP_SECRETS_MANAGER_ENDPOINT: fake.endpoint,
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'secret',
      });
      const { currentSigningKey } = await import('../../shared/auth/signing-keys.js');
      // Positive control: the password CloudFormation generated is replaced by a key set.
      fake.secrets.set('idp/signing-keys', { value: 'k3#Vq{x9-Generated|Placeholder!7' });
      expect((await currentSigningKey('ES256')).algorithm).toBe('ES256');
      const es256Keys = fake.secrets.get('idp/signing-keys')?.value ?? '';
      expect(JSON.parse(es256Keys)).toHaveProperty('keys');
      // The ES256 key set in the RS256 secret: refused, and not replaced (its keys would be lost).
      fake.secrets.set('idp/signing-keys-rs256', { value: es256Keys });
      await expect(currentSigningKey('RS256')).rejects.toThrow(
        'The secret "signing-keys-rs256" does not hold a signing key set',
      );
      expect(fake.secrets.get('idp/signing-keys-rs256')?.value).toBe(es256Keys);
      // The key set, then its public keys for the functions that only verify.
      expect(fake.calls('PutSecretValue').map((call) => call.input.SecretId)).toEqual([
        'idp/signing-keys',
        'idp/signing-keys-public',
      ]);
      expect(JSON.parse(fake.secrets.get('idp/signing-keys-public')?.value ?? '')).toEqual({
        keys: JSON.parse(es256Keys).keys.map((key: { publicJwk: object }) => key.publicJwk),
      });
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
      Object.assign(process.env, before);
      vi.resetModules();
      await fake.close();
    }
  });
});
