import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, upstreamIdentity } from '../../shared/auth/federation/upstream.js';
import { startScriptedUpstream } from '../support/scripted-upstream.js';

/**
 * DECISIONS.md: an upstream's discovery document and keys are kept at most an hour, and a token
 * signed with an unknown `kid` fetches the keys again at most once a minute. Time is passed in.
 */

const CLIENT = { clientId: 'caches', clientSecret: 'secret', redirectUri: 'http://127.0.0.1:1/callback' };
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;

beforeAll(async () => {
  upstream = await startScriptedUpstream(CLIENT.clientId);
});
afterAll(() => upstream?.close());

/** A code from the upstream's authorization endpoint, then the identity it yields at `now`. */
const signInAt = async (now: number) => {
  const authorize = new URL('/authorize', upstream.issuer);
  authorize.search = new URLSearchParams({
    nonce: 'n',
    state: 's',
    redirect_uri: CLIENT.redirectUri,
  }).toString();
  const back = (await fetch(authorize, { redirect: 'manual' })).headers.get('location') ?? '';
  const code = new URL(back).searchParams.get('code') ?? '';
  return upstreamIdentity(upstream.issuer, CLIENT, { code, codeVerifier: 'v', nonce: 'n', iss: null }, now);
};

describe('upstream caches', () => {
  it('keeps discovery and keys an hour; a new kid is looked for at most once a minute', async () => {
    const start = Date.now();
    expect((await signInAt(start)).email).toBe('pat@scripted.test');
    await signInAt(start + 1000);
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(1);
    expect(upstream.requestsTo('/jwks')).toBe(1);

    await upstream.rotateKey();
    // The keys were fetched less than a minute ago: the new kid is not looked for yet.
    await expect(signInAt(start + 30_000)).rejects.toMatchObject({ failure: 'invalid-answer' });
    expect(upstream.requestsTo('/jwks')).toBe(1);
    expect((await signInAt(start + 61_000)).email).toBe('pat@scripted.test');
    expect(upstream.requestsTo('/jwks')).toBe(2);

    // After an hour, discovery is read again (the ID tokens here would be expired by then).
    await discover(upstream.issuer, start + 3_599_000);
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(1);
    await discover(upstream.issuer, start + 3_600_001);
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(2);
  });
});
