import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJws } from '../../shared/auth/compact-jwt.js';
import type { OwnTokenExpectation } from '../../shared/auth/own-tokens.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * The service's own tokens, verified with aws-jwt-verify against its own keys: each refusal starts
 * from the same token done right. Base64url strictness and `crit` are this service's additions.
 */

const newDataDirectory = useTempDirs('own-tokens');
const ISSUER = 'http://localhost';
const ACCESS: OwnTokenExpectation = { typ: 'at+jwt', audience: 'idp' };

let modules: {
  verifiedOwnToken: typeof import('../../shared/auth/own-tokens.js').verifiedOwnToken;
  currentSigningKey: typeof import('../../shared/auth/signing-keys.js').currentSigningKey;
};

beforeAll(async () => {
  process.env.IDP_SECRET_STORE = 'file';
  process.env.IDP_DATA_DIR = newDataDirectory();
  const { verifiedOwnToken } = await import('../../shared/auth/own-tokens.js');
  const { currentSigningKey } = await import('../../shared/auth/signing-keys.js');
  modules = { verifiedOwnToken, currentSigningKey };
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

const claims = (overrides: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: 'idp',
  sub: 'person',
  exp: nowSeconds() + 600,
  ...overrides,
});

/** A token signed with the service's current key. */
const ownToken = async (header: Record<string, unknown> = {}, payload = claims()) => {
  return signJws(await modules.currentSigningKey(), { typ: 'at+jwt', ...header }, payload);
};

const verified = (token: string, expectation = ACCESS) => modules.verifiedOwnToken(token, expectation);

/** The token with its signature part replaced. */
const withSignature = (token: string, signature: string) =>
  `${token.slice(0, token.lastIndexOf('.'))}.${signature}`;
const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

describe('the claims and keys checked', () => {
  it('accepts a token of its own, and refuses another typ, issuer, audience, an expired one and another key', async () => {
    expect(await verified(await ownToken())).toMatchObject({ sub: 'person' });
    expect(await verified(await ownToken({ typ: 'JWT' }))).toBeUndefined();
    expect(await verified(await ownToken({}, claims({ iss: 'https://elsewhere.example' })))).toBeUndefined();
    expect(await verified(await ownToken({}, claims({ aud: 'another-api' })))).toBeUndefined();
    expect(await verified(await ownToken({}, claims({ exp: nowSeconds() - 60 })))).toBeUndefined();
    const ours = await modules.currentSigningKey();
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    expect(await verified(signJws({ ...ours, key: stranger }, { typ: 'at+jwt' }, claims()))).toBeUndefined();
    expect(await verified(await ownToken({ kid: 'not-a-key-of-ours' }))).toBeUndefined();
  });

  it('accepts an expired token within the grace it is given, and no longer', async () => {
    const expired = await ownToken({ typ: 'JWT' }, claims({ aud: 'client', exp: nowSeconds() - 60 }));
    const hint = { typ: 'JWT', audience: null } as const;
    expect(await verified(expired, { ...hint, graceSeconds: 3600 })).toMatchObject({ aud: 'client' });
    expect(await verified(expired, { ...hint, graceSeconds: 30 })).toBeUndefined();
  });

  it('refuses none, HMAC and RSA whatever the kid names', async () => {
    const { kid } = await modules.currentSigningKey();
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid, typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`;
    expect(await verified(none)).toBeUndefined();
    const hmac = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode('a-secret-anyone-could-guess-here'));
    expect(await verified(hmac)).toBeUndefined();
    const rsa = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
      .sign(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    expect(await verified(rsa)).toBeUndefined();
  });
});

describe('ID tokens, signed with either ring', () => {
  it('verifies an RS256 token of the RS256 key, and refuses one naming the other key or algorithm', async () => {
    const hint = { typ: 'JWT', audience: null } as const;
    const rs256 = await modules.currentSigningKey('RS256');
    const es256 = await modules.currentSigningKey('ES256');
    // Positive controls: each ring's own token.
    expect(await verified(signJws(rs256, { typ: 'JWT' }, claims()), hint)).toMatchObject({ sub: 'person' });
    expect(await verified(signJws(es256, { typ: 'JWT' }, claims()), hint)).toMatchObject({ sub: 'person' });
    // The RSA signature under the EC key's id, and an ES256 signature under the RSA key's id: the
    // key named decides the algorithm, not the header.
    expect(await verified(signJws(rs256, { typ: 'JWT', kid: es256.kid }, claims()), hint)).toBeUndefined();
    expect(await verified(signJws(es256, { typ: 'JWT', kid: rs256.kid }, claims()), hint)).toBeUndefined();
  });

  it('verifies access tokens against the ES256 keys alone: the RS256 key signs none', async () => {
    const rs256 = await modules.currentSigningKey('RS256');
    expect(await verified(await ownToken())).toMatchObject({ sub: 'person' });
    expect(await verified(signJws(rs256, { typ: 'at+jwt' }, claims()))).toBeUndefined();
  });
});

describe('what aws-jwt-verify lets through, refused on top of it', () => {
  it('refuses a crit header (no extension is understood), from the same token without it', async () => {
    expect(await verified(await ownToken({ exp: 1 }))).toMatchObject({ sub: 'person' });
    expect(await verified(await ownToken({ exp: 1, crit: ['exp'] }))).toBeUndefined();
    expect(await verified(await ownToken({ crit: [] }))).toBeUndefined();
  });

  it('refuses base64 padding on the signature, which does not change what it decodes to', async () => {
    const token = await ownToken();
    expect(await verified(token)).toBeDefined();
    // 64 signature bytes are 86 base64url characters; padded base64 would add "==".
    expect(signatureOf(token)).toHaveLength(86);
    expect(await verified(withSignature(token, `${signatureOf(token)}==`))).toBeUndefined();
  });

  it('refuses non-zero trailing bits in the last signature character (another spelling of it)', async () => {
    const token = await ownToken();
    expect(await verified(token)).toBeDefined();
    const signature = signatureOf(token);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // The last of 86 characters carries 2 bits of the signature and 4 bits that must be zero.
    const last = alphabet.indexOf(signature.at(-1) as string);
    const respelled = `${signature.slice(0, -1)}${alphabet[last | 0b0001]}`;
    expect(respelled).not.toBe(signature);
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(await verified(withSignature(token, respelled))).toBeUndefined();
  });

  it('refuses the standard alphabet (+ and /) in place of - and _ (aws-jwt-verify does too)', async () => {
    // ECDSA signatures are random: sign until one has a character the two alphabets spell differently.
    let token = await ownToken();
    while (!/[-_]/.test(signatureOf(token))) token = await ownToken();
    expect(await verified(token)).toBeDefined();
    const standard = signatureOf(token).replaceAll('-', '+').replaceAll('_', '/');
    expect(await verified(withSignature(token, standard))).toBeUndefined();
  });
});
