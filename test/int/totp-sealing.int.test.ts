import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSealed, openTotpSecret, sealTotpSecret } from '../../shared/auth/totp-sealing.js';
import { reloadConfig } from '../../shared/config.js';
import { newTotpSecret } from '../../shared/domain/totp.js';
import { useFakeSecretsManager } from '../support/fake-secrets-manager.js';

/**
 * TOTP secrets sealed under a key in Secrets Manager (shared/auth/totp-sealing.ts), through the
 * deployed adapter against the stand-in of its API.
 */
const secretsManager = useFakeSecretsManager();

const OWNER = { organizationId: 'org-1', userId: 'user-1' };
/** What the stack generates: Secrets Manager's template with a 64-character random string. */
const DEPLOYED_KEY = JSON.stringify({ id: '1', material: 'A'.repeat(30) + 'b'.repeat(34) });

beforeAll(() => {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
});

beforeEach(() => {
  secretsManager().reset();
  // A fresh read of the store's settings: the key is read again from the stand-in.
  reloadConfig();
});

describe('sealing TOTP secrets', () => {
  it('seals for its owner with the deployed key: it opens for them, never shows the secret, and differs each time', async () => {
    secretsManager().secrets.set('idp/totp-key', { value: DEPLOYED_KEY });
    const secret = newTotpSecret();
    const [sealed, again] = await Promise.all([sealTotpSecret(OWNER, secret), sealTotpSecret(OWNER, secret)]);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toBe(again);
    expect(await openTotpSecret(OWNER, sealed)).toBe(secret);
    // The key was read, not made: the deployed one stays.
    expect(secretsManager().calls('CreateSecret')).toEqual([]);
    expect(secretsManager().secrets.get('idp/totp-key')?.value).toBe(DEPLOYED_KEY);
  });

  it('opens for nobody else, nor once altered, nor under another key', async () => {
    secretsManager().secrets.set('idp/totp-key', { value: DEPLOYED_KEY });
    const secret = newTotpSecret();
    const sealed = await sealTotpSecret(OWNER, secret);
    // The positive control: the same text opens for its owner.
    expect(await openTotpSecret(OWNER, sealed)).toBe(secret);
    expect(await openTotpSecret({ ...OWNER, userId: 'user-2' }, sealed)).toBeUndefined();
    expect(await openTotpSecret({ ...OWNER, organizationId: 'org-2' }, sealed)).toBeUndefined();
    const [prefix, keyId, iv, body] = sealed.split('.') as [string, string, string, string];
    const flipped = `${body.slice(0, 5)}${body[5] === 'A' ? 'B' : 'A'}${body.slice(6)}`;
    expect(await openTotpSecret(OWNER, [prefix, keyId, iv, flipped].join('.'))).toBeUndefined();
    expect(await openTotpSecret(OWNER, [prefix, 'other', iv, body].join('.'))).toBeUndefined();
    expect(await openTotpSecret(OWNER, [prefix, keyId, iv, ''].join('.'))).toBeUndefined();
    expect(await openTotpSecret(OWNER, [prefix, keyId, 'short', body].join('.'))).toBeUndefined();
  });

  it('opens a secret stored before sealing as itself', async () => {
    expect(isSealed('JBSWY3DPEHPK3PXP')).toBe(false);
    expect(await openTotpSecret(OWNER, 'JBSWY3DPEHPK3PXP')).toBe('JBSWY3DPEHPK3PXP');
  });

  it('creates the key once where none exists (locally), and every later read uses it', async () => {
    const [first, second] = await Promise.all([
      sealTotpSecret(OWNER, 'JBSWY3DPEHPK3PXP'),
      sealTotpSecret(OWNER, 'JBSWY3DPEHPK3PXP'),
    ]);
    expect(secretsManager().calls('CreateSecret')).toHaveLength(1);
    reloadConfig();
    expect(await openTotpSecret(OWNER, first)).toBe('JBSWY3DPEHPK3PXP');
    expect(await openTotpSecret(OWNER, second)).toBe('JBSWY3DPEHPK3PXP');
  });

  it('fails, naming the secret, when it holds no key, and leaves it as it is', async () => {
    secretsManager().secrets.set('idp/totp-key', { value: 'not a key' });
    await expect(sealTotpSecret(OWNER, 'JBSWY3DPEHPK3PXP')).rejects.toThrow(
      'The secret totp-key does not hold a TOTP sealing key',
    );
    expect(secretsManager().secrets.get('idp/totp-key')?.value).toBe('not a key');
  });
});
