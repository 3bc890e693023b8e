import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  algorithmFitsKey,
  assertionClaimsProblem,
  assertionHeaderProblem,
  type ClientJwk,
  clientKeySetProblem,
  keyForAssertion,
  MAX_ASSERTION_LIFETIME_SECONDS,
} from '../../shared/domain/client-keys.js';

const publicJwk = (type: 'ec' | 'rsa' | 'ed25519', options: Record<string, unknown> = {}): ClientJwk => {
  const generate = generateKeyPairSync as (type: string, options: object) => { publicKey: KeyObject };
  const { publicKey } = generate(type, { namedCurve: 'P-256', modulusLength: 2048, ...options });
  return publicKey.export({ format: 'jwk' }) as ClientJwk;
};

const ec = publicJwk('ec');
const rsa = publicJwk('rsa');
const ed = publicJwk('ed25519');

describe('registered key sets', () => {
  it('takes public EC, RSA and Ed25519 keys, with fitting alg and use', () => {
    expect(clientKeySetProblem({ keys: [{ ...rsa, e: 'AQAB' }] })).toBeUndefined();
    expect(clientKeySetProblem({ keys: [ec] })).toBeUndefined();
    expect(
      clientKeySetProblem({
        keys: [
          { ...rsa, alg: 'RS256', use: 'sig', kid: 'r' },
          { ...ec, kid: 'e', alg: 'ES256' },
        ],
      }),
    ).toBeUndefined();
    expect(clientKeySetProblem({ keys: [{ ...ed, alg: 'EdDSA' }] })).toBeUndefined();
    expect(clientKeySetProblem({ keys: [publicJwk('ec', { namedCurve: 'P-384' })] })).toBeUndefined();
  });

  it.each([
    ['no keys', { keys: [] }, 'Register at least one key'],
    [
      'six keys',
      { keys: [1, 2, 3, 4, 5, 6].map((n) => ({ ...ec, kid: `k${n}` })) },
      'Register at most 5 keys',
    ],
    [
      'a private key',
      { keys: [generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })] },
      /public key only/,
    ],
    ['a symmetric key', { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, 'kty must be EC, RSA or OKP'],
    ['an inherited name as kty', { keys: [{ ...ec, kty: 'constructor' }] }, 'kty must be EC, RSA or OKP'],
    ['a key that is not an object', { keys: ['key'] }, 'A key is a JSON object'],
    ['an RSA key of 1024 bits', { keys: [publicJwk('rsa', { modulusLength: 1024 })] }, /at least 2048 bits/],
    [
      'a 1024-bit modulus padded with zero octets',
      {
        keys: [
          (() => {
            const weak = publicJwk('rsa', { modulusLength: 1024 });
            const padded = Buffer.concat([Buffer.alloc(128), Buffer.from(String(weak.n), 'base64url')]);
            return { ...weak, n: padded.toString('base64url') };
          })(),
        ],
      },
      /without leading zero octets/,
    ],
    ['an exponent of 1', { keys: [{ ...rsa, e: 'AQ' }] }, 'e must be odd and at least 65537'],
    ['an exponent of 3', { keys: [{ ...rsa, e: 'Aw' }] }, 'e must be odd and at least 65537'],
    ['an even exponent', { keys: [{ ...rsa, e: 'AQAC' }] }, 'e must be odd and at least 65537'],
    ['a modulus of no possible length', { keys: [{ ...rsa, n: 'AAAAA' }] }, /n and e must be base64url/],
    ['a curve not offered', { keys: [publicJwk('ec', { namedCurve: 'secp256k1' })] }, /crv must be one of/],
    ['an encryption key', { keys: [{ ...ec, use: 'enc' }] }, 'use must be sig'],
    ['an HMAC alg', { keys: [{ ...ec, alg: 'HS256' }] }, /alg must be one of/],
    ['an alg of another key type', { keys: [{ ...ec, alg: 'RS256' }] }, 'alg RS256 does not fit this key'],
    ['an alg of another curve', { keys: [{ ...ec, alg: 'ES384' }] }, 'alg ES384 does not fit this key'],
    ['two keys, one without kid', { keys: [{ ...ec, kid: 'a' }, rsa] }, /each needs a kid of its own/],
    [
      'two keys with the same kid',
      {
        keys: [
          { ...ec, kid: 'a' },
          { ...rsa, kid: 'a' },
        ],
      },
      /each needs a kid of its own/,
    ],
    ['an empty kid', { keys: [{ ...ec, kid: '' }] }, /kid must be a string/],
    ['no keys member', {}, /JWK Set/],
  ])('refuses %s', (_case, jwks, message) => {
    expect(clientKeySetProblem(jwks as never)?.message).toMatch(message);
  });

  it('finds the key an assertion names, or the only one when it names none', () => {
    const keys = {
      keys: [
        { ...ec, kid: 'a' },
        { ...rsa, kid: 'b' },
      ],
    };
    expect(keyForAssertion(keys, 'b')).toBe(keys.keys[1]);
    expect(keyForAssertion(keys, 'c')).toBeUndefined();
    expect(keyForAssertion(keys, undefined)).toBeUndefined();
    expect(keyForAssertion({ keys: [ec] }, undefined)).toBe(ec);
    expect(keyForAssertion({ keys: [ec] }, 'other')).toBeUndefined();
  });
});

it('ties an algorithm to the key type and curve it signs with', () => {
  expect(algorithmFitsKey('ES256', ec)).toBe(true);
  expect(algorithmFitsKey('RS256', rsa)).toBe(true);
  expect(algorithmFitsKey('EdDSA', ed)).toBe(true);
  expect(algorithmFitsKey('ES256', rsa)).toBe(false);
  expect(algorithmFitsKey('ES384', ec)).toBe(false);
  expect(algorithmFitsKey('EdDSA', rsa)).toBe(false);
  expect(algorithmFitsKey('HS256', ec)).toBe(false);
  expect(algorithmFitsKey('constructor', ec)).toBe(false);
});

describe('client assertion claims', () => {
  const now = 1_800_000_000;
  const expected = { clientId: 'c1', issuer: 'https://idp.example', nowSeconds: now };
  const valid = { iss: 'c1', sub: 'c1', aud: 'https://idp.example', exp: now + 60, jti: 'j1' };

  it('takes an assertion of the client, for this issuer, at most ten minutes ahead, with a jti', () => {
    expect(assertionClaimsProblem(valid, expected)).toBeUndefined();
    expect(
      assertionClaimsProblem({ ...valid, exp: now + MAX_ASSERTION_LIFETIME_SECONDS }, expected),
    ).toBeUndefined();
    expect(assertionClaimsProblem({ ...valid, jti: 'j'.repeat(256) }, expected)).toBeUndefined();
  });

  it.each([
    ['another sub', { sub: 'c2' }, 'iss and sub must be the client_id'],
    ['another iss', { iss: 'c2' }, 'iss and sub must be the client_id'],
    ['the token endpoint as aud', { aud: 'https://idp.example/oauth2/token' }, /aud must be/],
    ['the issuer in an array', { aud: ['https://idp.example'] }, /aud must be/],
    ['no exp', { exp: undefined }, 'exp is required'],
    [
      'an exp a second too far',
      { exp: now + MAX_ASSERTION_LIFETIME_SECONDS + 1 },
      /at most 600 seconds ahead/,
    ],
    ['no jti', { jti: undefined }, /jti is required/],
    ['an empty jti', { jti: '' }, /jti is required/],
    ['a jti of 257 characters', { jti: 'j'.repeat(257) }, /jti is required/],
  ])('refuses %s', (_case, change, message) => {
    expect(assertionClaimsProblem({ ...valid, ...change }, expected)).toMatch(message);
  });

  it('takes an untyped, JWT or client-authentication+jwt header; refuses other types and any crit', () => {
    for (const typ of [undefined, 'JWT', 'client-authentication+jwt'])
      expect(assertionHeaderProblem({ alg: 'ES256', typ })).toBeUndefined();
    // The same media types spelt otherwise (RFC 7515 4.1.9): any case, with or without application/.
    for (const typ of [
      'jwt',
      'application/JWT',
      'Client-Authentication+JWT',
      'application/client-authentication+jwt',
    ])
      expect(assertionHeaderProblem({ alg: 'ES256', typ })).toBeUndefined();
    for (const typ of ['at+jwt', 'application/at+jwt', 'text/jwt', 'client-authentication+jwt/'])
      expect(assertionHeaderProblem({ alg: 'ES256', typ })).toMatch(/typ must be/);
    expect(assertionHeaderProblem({ alg: 'ES256', crit: ['exp'] })).toMatch(/crit/);
  });
});
