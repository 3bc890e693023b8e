import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { upstreamIdentity } from '../../shared/auth/federation/upstream.js';
import { startScriptedUpstream, upstreamSignIn } from '../support/scripted-upstream.js';

/**
 * What the relying party (openid-client, with IDP's settings) accepts from an upstream: ID tokens
 * signed with an asymmetric algorithm the upstream advertises, with a key of the right type,
 * curve and strength from its JWKS; never `none` or HMAC, whatever it advertises; a discovery
 * document naming exactly the configured issuer, with https endpoints (http only on loopback).
 * Each upstream here is new, so no cache carries over between cases.
 */

const CLIENT = {
  clientId: 'algorithms',
  clientSecret: 'the-client-secret',
  redirectUri: 'http://127.0.0.1:1/cb',
};
const upstreams: Awaited<ReturnType<typeof startScriptedUpstream>>[] = [];
afterEach(async () => {
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

const newUpstream = async () => {
  const upstream = await startScriptedUpstream(CLIENT.clientId);
  upstreams.push(upstream);
  return upstream;
};

/** Signs in through the upstream; answers the email it vouches for, or the failure. */
const signIn = async (upstream: Awaited<ReturnType<typeof startScriptedUpstream>>, deadline?: number) => {
  return upstreamIdentity(
    upstream.issuer,
    CLIENT,
    await upstreamSignIn(upstream.issuer, CLIENT.redirectUri),
    deadline,
  ).then(
    (identity) => identity.email,
    (error: { failure?: string; detail?: string }) => ({ failure: error.failure, detail: error.detail }),
  );
};

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS signed by node:crypto as told (any key, any header: what jose would refuse to make). */
const rawJws = (header: object, claims: JWTPayload, signer: (input: Buffer) => Buffer) => {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${signer(Buffer.from(input)).toString('base64url')}`;
};

/** The same token with one bit of its signature changed. */
const spoiled = (token: string) => {
  const [header, payload, signature = ''] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
};

const publicJwk = (key: KeyObject, extra: object): JWK => ({ ...key.export({ format: 'jwk' }), ...extra });

const refused = (reason: string) => ({ failure: 'invalid-answer', detail: `ID token: ${reason}` });
const NO_KEY = 'error when selecting a JWT verification key, no applicable keys found';

const ACCEPTED = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

describe('upstream ID token signatures', () => {
  it.each(ACCEPTED)(
    'accepts %s with the key the upstream publishes, and refuses a changed signature',
    async (alg) => {
      const upstream = await newUpstream();
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      upstream.publishKeys([{ ...(await exportJWK(publicKey)), kid: 'k', alg, use: 'sig' }]);
      upstream.advertise({ id_token_signing_alg_values_supported: [alg] });
      const signed = (claims: JWTPayload) =>
        new SignJWT(claims).setProtectedHeader({ alg, kid: 'k' }).sign(privateKey);
      upstream.script((claims) => signed(claims));
      expect(await signIn(upstream)).toBe('pat@scripted.test');
      upstream.script(async (claims) => spoiled(await signed(claims)));
      expect(await signIn(upstream)).toEqual(refused('JWT signature verification failed'));
    },
  );

  it('takes a `sub` of 1 to 255 printable ASCII characters (OpenID Connect Core 2), which links the account', async () => {
    const upstream = await newUpstream();
    upstream.signInAs('pat@scripted.test', 's'.repeat(255));
    expect(await signIn(upstream)).toBe('pat@scripted.test');
    for (const subject of ['s'.repeat(256), 'caf\u00e9', 'line\nbreak', '']) {
      upstream.signInAs('pat@scripted.test', subject);
      expect(await signIn(upstream), JSON.stringify(subject)).toEqual(
        subject === ''
          ? expect.objectContaining({ failure: 'invalid-answer' })
          : refused('claims of the wrong type'),
      );
    }
  });

  it('takes the email from UserInfo when the ID token has none, and its verification from UserInfo alone', async () => {
    const upstream = await newUpstream();
    upstream.advertise({ userinfo_endpoint: `${upstream.issuer}/userinfo` });
    // The ID token says its (absent) email is verified; the address comes from UserInfo.
    upstream.script((claims, sign) => sign({ ...claims, email: undefined }));
    const identity = async () => {
      const { email, emailVerified } = await upstreamIdentity(
        upstream.issuer,
        CLIENT,
        await upstreamSignIn(upstream.issuer, CLIENT.redirectUri),
      );
      return { email, emailVerified };
    };
    upstream.answerUserInfo({ email: 'info@scripted.test', email_verified: true });
    expect(await identity()).toEqual({ email: 'info@scripted.test', emailVerified: true });
    upstream.answerUserInfo({ email: 'info@scripted.test' });
    expect(await identity()).toEqual({ email: 'info@scripted.test', emailVerified: false });
  });

  it('refuses HMAC keyed with the client secret and none, even when the upstream advertises them', async () => {
    const upstream = await newUpstream();
    upstream.advertise({ id_token_signing_alg_values_supported: ['ES256', 'HS256', 'none'] });
    expect(await signIn(upstream)).toBe('pat@scripted.test');
    upstream.script((claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: 'scripted-1' })
        .sign(new TextEncoder().encode(CLIENT.clientSecret)),
    );
    expect(await signIn(upstream)).toEqual(refused('unsupported JWS algorithm'));
    upstream.script(async (claims) => `${b64({ alg: 'none' })}.${b64(claims)}.`);
    expect(await signIn(upstream)).toEqual(refused('unsupported JWS "alg" identifier'));
  });

  it('refuses an algorithm the upstream does not advertise', async () => {
    expect(await signIn(await newUpstream())).toBe('pat@scripted.test');
    // It signs with ES256, as before, but says RS256 only (its discovery document is read once).
    const upstream = await newUpstream();
    upstream.advertise({ id_token_signing_alg_values_supported: ['RS256'] });
    expect(await signIn(upstream)).toEqual(refused('unexpected JWT "alg" header parameter'));
  });

  it('refuses an RSA key under 2,048 bits', async () => {
    const withKey = async (modulusLength: number) => {
      const upstream = await newUpstream();
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
      upstream.publishKeys([publicJwk(publicKey, { kid: 'rsa', alg: 'RS256', use: 'sig' })]);
      upstream.advertise({ id_token_signing_alg_values_supported: ['RS256'] });
      upstream.script(async (claims) =>
        rawJws({ alg: 'RS256', kid: 'rsa' }, claims, (input) => sign('sha256', input, privateKey)),
      );
      return signIn(upstream);
    };
    expect(await withKey(2048)).toBe('pat@scripted.test');
    expect(await withKey(1024)).toEqual(refused('unsupported RSASSA-PKCS1-v1_5 modulusLength'));
  });

  it("refuses an ECDSA key on another curve than the algorithm's, and a key of another type", async () => {
    const withCurve = async (namedCurve: string, alg = 'ES256') => {
      const upstream = await newUpstream();
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
      upstream.publishKeys([publicJwk(publicKey, { kid: 'ec', use: 'sig' })]);
      upstream.advertise({ id_token_signing_alg_values_supported: ['ES256', 'RS256'] });
      upstream.script(async (claims) =>
        rawJws({ alg, kid: 'ec' }, claims, (input) =>
          sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }),
        ),
      );
      return signIn(upstream);
    };
    expect(await withCurve('P-256')).toBe('pat@scripted.test');
    expect(await withCurve('P-384')).toEqual(refused(NO_KEY));
    // An ES256 signature presented as RS256: no RSA key to take it.
    expect(await withCurve('P-256', 'RS256')).toEqual(refused(NO_KEY));
  });
});

describe('upstream discovery', () => {
  it('pins the issuer to the configured string', async () => {
    const upstream = await newUpstream();
    upstream.advertise({ issuer: `${upstream.issuer}/` });
    expect(await signIn(upstream)).toEqual({
      failure: 'invalid-answer',
      detail: 'discovery document: issuer',
    });
    const other = await newUpstream();
    other.advertise({ issuer: 'https://login.other.example' });
    expect(await signIn(other)).toEqual({
      failure: 'invalid-answer',
      detail: 'discovery document: discovered metadata issuer does not match the expected issuer',
    });
    const right = await newUpstream();
    expect(await signIn(right)).toBe('pat@scripted.test');
  });

  it('refuses http endpoints off loopback, even for a loopback issuer', async () => {
    const upstream = await newUpstream();
    upstream.advertise({ token_endpoint: 'http://login.other.example/token' });
    expect(await signIn(upstream)).toEqual({
      failure: 'invalid-answer',
      detail: 'discovery document: token_endpoint',
    });
  });

  it('reads a JWKS of up to 1 MiB through the same limit as every answer', async () => {
    const upstream = await newUpstream();
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const key = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256', use: 'sig' };
    upstream.script((claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k' }).sign(privateKey),
    );
    // Unused members pad the set: within the limit, then beyond it.
    upstream.publishKeys([key, { kty: 'oct', kid: 'padding', k: 'x'.repeat(1024 * 1024 - 400) }]);
    expect(await signIn(upstream)).toBe('pat@scripted.test');
    const larger = await newUpstream();
    larger.script((claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k' }).sign(privateKey),
    );
    larger.publishKeys([key, { kty: 'oct', kid: 'padding', k: 'x'.repeat(1024 * 1024) }]);
    expect(await signIn(larger)).toEqual({ failure: 'invalid-answer', detail: 'the JWKS is too large' });
  });
});

describe('the upstream calls of one sign-in', () => {
  it('share one deadline', async () => {
    const slow = await newUpstream();
    // Discovery, token and JWKS: each answers within 700 ms, all three do not.
    slow.answerAfter(300);
    expect(await signIn(slow)).toBe('pat@scripted.test');
    const slower = await newUpstream();
    slower.answerAfter(300);
    expect(await signIn(slower, Date.now() + 700)).toMatchObject({ failure: 'unreachable' });
  });
});
