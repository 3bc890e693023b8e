import { join } from 'node:path';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../shared/auth/file-secret-store.js';
import { SecretsManagerSecretStore } from '../../shared/auth/secrets-manager-store.js';
import { useTempDirs } from '../support/temp-dir.js';

const named = (name: string) => Object.assign(new Error(name), { name });
const isReal = (value: string) => value.startsWith('real');

describe('Secrets Manager secret store', () => {
  const secretsManager = mockClient(SecretsManagerClient);
  const store = new SecretsManagerSecretStore('idp/', new SecretsManagerClient({}));
  beforeEach(() => secretsManager.reset());

  it('reads prefixed names and answers undefined for a missing secret', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: 'idp/a' }).resolves({ SecretString: 'value' });
    secretsManager
      .on(GetSecretValueCommand, { SecretId: 'idp/b' })
      .rejects(named('ResourceNotFoundException'));
    expect(await store.get('a')).toBe('value');
    expect(await store.get('b')).toBeUndefined();
  });

  it('updates in place and creates the secret on first write', async () => {
    secretsManager.on(PutSecretValueCommand).rejectsOnce(named('ResourceNotFoundException')).resolves({});
    secretsManager.on(CreateSecretCommand).resolves({});
    await store.put('sso/client', 's3cret');
    expect(secretsManager.commandCalls(CreateSecretCommand)[0]?.args[0].input).toMatchObject({
      Name: 'idp/sso/client',
      SecretString: 's3cret',
    });
    await store.put('sso/client', 'next');
    expect(secretsManager.commandCalls(PutSecretValueCommand)[1]?.args[0].input).toMatchObject({
      SecretId: 'idp/sso/client',
      SecretString: 'next',
    });
  });

  it('initializes a placeholder once; a concurrent loser reads the winner', async () => {
    secretsManager
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'placeholder' })
      .resolves({ SecretString: 'real-winner' });
    secretsManager.on(PutSecretValueCommand).rejects(named('ResourceExistsException'));
    expect(await store.initialize('signing-keys', 'real-mine', isReal)).toBe('real-winner');
    const put = secretsManager.commandCalls(PutSecretValueCommand)[0]?.args[0].input;
    expect(put?.ClientRequestToken).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps an initialized value', async () => {
    secretsManager.on(GetSecretValueCommand).resolves({ SecretString: 'real-existing' });
    expect(await store.initialize('signing-keys', 'real-new', isReal)).toBe('real-existing');
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
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
  });
});
