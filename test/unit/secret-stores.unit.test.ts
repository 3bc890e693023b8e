import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../shared/auth/file-secret-store.js';
import { SecretsManagerSecretStore, secretsManagerClient } from '../../shared/auth/secrets-manager-store.js';
import { startFakeSecretsManager } from '../support/fake-secrets-manager.js';
import { useTempDirs } from '../support/temp-dir.js';

const isReal = (value: string) => value.startsWith('real');

describe('Secrets Manager secret store (the SDK client against a stand-in of its API)', () => {
  let fake: Awaited<ReturnType<typeof startFakeSecretsManager>>;
  let store: SecretsManagerSecretStore;
  beforeAll(async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
    fake = await startFakeSecretsManager();
    store = new SecretsManagerSecretStore('idp/', secretsManagerClient(fake.endpoint));
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('reads prefixed names and answers undefined for a missing secret', async () => {
    fake.secrets.set('idp/a', { value: 'value' });
    expect(await store.get('a')).toBe('value');
    expect(await store.get('b')).toBeUndefined();
    expect(fake.calls('GetSecretValue').map((call) => call.input.SecretId)).toEqual(['idp/a', 'idp/b']);
  });

  it('creates the secret on first write, then updates it in place', async () => {
    await store.put('sso/client', 's3cret');
    await store.put('sso/client', 'next');
    expect(fake.calls().map((call) => [call.operation, call.input.SecretId ?? call.input.Name])).toEqual([
      ['PutSecretValue', 'idp/sso/client'],
      ['CreateSecret', 'idp/sso/client'],
      ['PutSecretValue', 'idp/sso/client'],
    ]);
    expect(fake.secrets.get('idp/sso/client')?.value).toBe('next');
  });

  it('creates a secret of a new name, and never replaces one', async () => {
    await store.create('sso/client/v1/secret', 's3cret');
    await expect(store.create('sso/client/v1/secret', 'other')).rejects.toMatchObject({
      name: 'ResourceExistsException',
    });
    expect(fake.calls().map((call) => [call.operation, call.input.Name])).toEqual([
      ['CreateSecret', 'idp/sso/client/v1/secret'],
      ['CreateSecret', 'idp/sso/client/v1/secret'],
    ]);
    expect(fake.secrets.get('idp/sso/client/v1/secret')?.value).toBe('s3cret');
  });

  it('initializes a placeholder once; a concurrent loser reads the winner', async () => {
    fake.secrets.set('idp/signing-keys', { value: 'placeholder' });
    const [first, second] = await Promise.all([
      store.initialize('signing-keys', 'real-1', isReal),
      store.initialize('signing-keys', 'real-2', isReal),
    ]);
    expect(first).toBe(second);
    expect(fake.calls('PutSecretValue')[0]?.input.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps an initialized value', async () => {
    fake.secrets.set('idp/signing-keys', { value: 'real-existing' });
    expect(await store.initialize('signing-keys', 'real-new', isReal)).toBe('real-existing');
    expect(fake.calls('PutSecretValue')).toHaveLength(0);
  });

  it('deletes without a recovery window, and a missing secret is fine', async () => {
    fake.secrets.set('idp/sso/gone', { value: 'old' });
    await store.delete('sso/gone');
    await store.delete('sso/gone');
    expect(fake.secrets.has('idp/sso/gone')).toBe(false);
    expect(fake.calls('DeleteSecret').map((call) => call.input)).toEqual([
      { SecretId: 'idp/sso/gone', ForceDeleteWithoutRecovery: true },
      { SecretId: 'idp/sso/gone', ForceDeleteWithoutRecovery: true },
    ]);
  });

  it('tries again on throttling (the signing keys load through it), not on a refusal', async () => {
    fake.secrets.set('idp/signing-keys', { value: 'real-keys' });
    fake.fail('GetSecretValue', 'ThrottlingException', 1);
    expect(await store.get('signing-keys')).toBe('real-keys');
    expect(fake.calls('GetSecretValue')).toHaveLength(2);

    fake.fail('GetSecretValue', 'AccessDeniedException', 1);
    await expect(store.get('signing-keys')).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(fake.calls('GetSecretValue')).toHaveLength(3);
  });

  it('names the error Secrets Manager answered', async () => {
    fake.fail('PutSecretValue', 'AccessDeniedException');
    await expect(store.put('x', 'y')).rejects.toMatchObject({ name: 'AccessDeniedException' });
  });
});

describe('file secret store', () => {
  const newSecretsDirectory = useTempDirs('secrets');

  it('stores, replaces, and lets the first initializer win', async () => {
    const store = new FileSecretStore(join(newSecretsDirectory(), 'nested'));
    expect(await store.get('x')).toBeUndefined();
    const [first, second] = await Promise.all([
      store.initialize('keys', 'real-1', isReal),
      store.initialize('keys', 'real-2', isReal),
    ]);
    expect(first).toBe(second);
    await store.put('x', 'one');
    await store.put('x', 'two');
    expect(await store.get('x')).toBe('two');
    await expect(store.create('x', 'three')).rejects.toMatchObject({ code: 'EEXIST' });
    await store.create('y', 'new');
    expect([await store.get('x'), await store.get('y')]).toEqual(['two', 'new']);
    await store.delete('x');
    await store.delete('x');
    expect(await store.get('x')).toBeUndefined();
  });
});
