import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { discover, upstreamIdentity } from '../../shared/auth/federation/upstream.js';
import { startScriptedUpstream, upstreamSignIn } from '../support/scripted-upstream.js';

/**
 * DECISIONS.md: an upstream's discovery document and keys are kept at most an hour, and a token
 * signed with an unknown `kid` fetches the keys again at most once a minute. Discovery is cached
 * by IDP, the keys by openid-client (handed from one sign-in's Configuration to the next): both
 * read the clock through Date, which is faked here (the scripted upstream's tokens follow it).
 */

const CLIENT = { clientId: 'caches', clientSecret: 'secret', redirectUri: 'http://127.0.0.1:1/callback' };
let upstream: Awaited<ReturnType<typeof startScriptedUpstream>>;

beforeAll(async () => {
  upstream = await startScriptedUpstream(CLIENT.clientId);
});
afterAll(() => upstream?.close());
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A code from the upstream's authorization endpoint, then the identity it yields at `now`. */
const signInAt = async (now: number) => {
  vi.setSystemTime(now);
  return upstreamIdentity(upstream.issuer, CLIENT, await upstreamSignIn(upstream.issuer, CLIENT.redirectUri));
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('upstream caches', () => {
  it('keeps discovery and keys; a new kid is looked for at most once a minute; nothing past an hour', async () => {
    const start = Date.UTC(2030, 0, 1);
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
    // Known kids are taken from the keys fetched then (openid-client keeps them 5 minutes) ...
    await signInAt(start + 61_000 + 5 * MINUTE - 1000);
    expect(upstream.requestsTo('/jwks')).toBe(2);
    // ... and never past an hour.
    await signInAt(start + 61_000 + HOUR);
    expect(upstream.requestsTo('/jwks')).toBe(3);

    // Discovery was read once; after an hour it is read again.
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(2);
    vi.setSystemTime(start + 2 * HOUR);
    await discover(upstream.issuer, CLIENT.clientId);
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(2);
    vi.setSystemTime(start + 61_000 + 2 * HOUR + 1);
    await discover(upstream.issuer, CLIENT.clientId);
    expect(upstream.requestsTo('/.well-known/openid-configuration')).toBe(3);
  });
});
