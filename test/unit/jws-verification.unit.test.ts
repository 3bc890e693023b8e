import { createPublicKey, createSecretKey, generateKeyPairSync, sign } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { verifiedJws } from '../../shared/auth/compact-jwt.js';
import { ID_TOKEN_ALGORITHMS } from '../../shared/auth/federation/upstream-keys.js';

/** Upstream ID token signatures, verified on node:crypto: each algorithm `jose` signs with, and the refusals. */

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

describe('verifiedJws', () => {
  it.each(Object.keys(ID_TOKEN_ALGORITHMS))('verifies %s, and refuses a changed signature', async (alg) => {
    const { token, key } = await signed(alg);
    expect(verifiedJws(token, key, ID_TOKEN_ALGORITHMS)?.payload).toEqual(PAYLOAD);
    expect(verifiedJws(spoiled(token), key, ID_TOKEN_ALGORITHMS)).toBeUndefined();
  });

  it('verifies Ed448 under EdDSA too', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed448');
    const input = `${Buffer.from('{"alg":"EdDSA"}').toString('base64url')}.${Buffer.from(JSON.stringify(PAYLOAD)).toString('base64url')}`;
    const token = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
    expect(verifiedJws(token, publicKey, ID_TOKEN_ALGORITHMS)?.payload).toEqual(PAYLOAD);
  });

  it('refuses an algorithm outside the table, and a key of another type than the algorithm', async () => {
    const rsa = await signed('RS256');
    const ec = await signed('ES256');
    expect(verifiedJws(rsa.token, rsa.key, { ES256: ID_TOKEN_ALGORITHMS.ES256 as never })).toBeUndefined();
    expect(verifiedJws(rsa.token, ec.key, ID_TOKEN_ALGORITHMS)).toBeUndefined();
    // An ES256 token presented as RS256: the header decides, and the RSA check fails.
    const [, payload, signature] = ec.token.split('.');
    const relabelled = `${Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')}.${payload}.${signature}`;
    expect(verifiedJws(relabelled, rsa.key, ID_TOKEN_ALGORITHMS)).toBeUndefined();
  });

  it('refuses none and HMAC, whatever the key', async () => {
    const secret = new TextEncoder().encode('the-client-secret-of-the-provider');
    const hmac = await new SignJWT(PAYLOAD).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    expect(verifiedJws(hmac, createSecretKey(secret), ID_TOKEN_ALGORITHMS)).toBeUndefined();
    const { key } = await signed('RS256');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(PAYLOAD)).toString('base64url')}.`;
    expect(verifiedJws(none, key, ID_TOKEN_ALGORITHMS)).toBeUndefined();
    expect(verifiedJws('not.a.jws.token', key, ID_TOKEN_ALGORITHMS)).toBeUndefined();
  });
});
