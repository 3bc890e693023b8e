import { createPublicKey, createSecretKey } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifiedEs256 } from '../../shared/auth/compact-jwt.js';

/**
 * The service's own tokens (userinfo, logout hints), verified on node:crypto: ES256 only, with the
 * key of the header's `kid`. (An SSO upstream's ID tokens are openid-client's to verify:
 * upstream-id-tokens.unit.test.ts.)
 */

const PAYLOAD = { sub: 'subject', nonce: 'n-1' };

const signed = async (alg: string) => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const token = await new SignJWT(PAYLOAD).setProtectedHeader({ alg, kid: 'k' }).sign(privateKey);
  return { token, key: createPublicKey({ key: (await exportJWK(publicKey)) as never, format: 'jwk' }) };
};

/** The same token with one bit of its signature changed. */
const spoiled = (token: string) => {
  const [header, payload, signature = ''] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
};

describe('verifiedEs256', () => {
  it('verifies ES256 with the key of the header kid, and nothing else', async () => {
    const ec = await signed('ES256');
    expect(verifiedEs256(ec.token, (kid) => (kid === 'k' ? ec.key : undefined))?.payload).toEqual(PAYLOAD);
    expect(verifiedEs256(ec.token, () => undefined)).toBeUndefined();
    expect(verifiedEs256(spoiled(ec.token), () => ec.key)).toBeUndefined();
    const rsa = await signed('RS256');
    expect(verifiedEs256(rsa.token, () => rsa.key)).toBeUndefined();
    expect(verifiedEs256('not.a.jws.token', () => ec.key)).toBeUndefined();
  });

  it('refuses none and HMAC, whatever the key', async () => {
    const ec = await signed('ES256');
    expect(verifiedEs256(ec.token, () => ec.key)).toBeDefined();
    const secret = new TextEncoder().encode('a-secret-someone-might-know');
    const hmac = await new SignJWT(PAYLOAD).setProtectedHeader({ alg: 'HS256', kid: 'k' }).sign(secret);
    expect(verifiedEs256(hmac, () => createSecretKey(secret))).toBeUndefined();
    expect(verifiedEs256(hmac, () => ec.key)).toBeUndefined();
    const none = `${Buffer.from('{"alg":"none","kid":"k"}').toString('base64url')}.${Buffer.from(JSON.stringify(PAYLOAD)).toString('base64url')}.`;
    expect(verifiedEs256(none, () => ec.key)).toBeUndefined();
  });
});
