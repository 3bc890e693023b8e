import { describe, expect, it } from 'vitest';
import { checkAuthorizationRequest, sessionRecentEnough } from '../../shared/domain/authorization.js';
import {
  AUTH_TIME_SKEW_SECONDS,
  earliestAuthTime,
  federatedAuthTime,
  maxAgeAtCallback,
  upstreamMaxAge,
  upstreamSignInEnded,
} from '../../shared/domain/federated-authentication.js';
import type { ApiClientRecord } from '../../shared/store/entities.js';

/** How recent a sign-in must be (max_age, prompt=login), here and at an SSO provider's upstream. */

const NOW = Date.UTC(2030, 0, 1);

describe('max_age of an authorization request', () => {
  const client = {
    id: 'app',
    organizationId: 'org',
    flowType: 'authorization_code',
    redirectUris: ['https://app.example/cb'],
  } as unknown as ApiClientRecord;
  const request = (extra: Record<string, string>) =>
    checkAuthorizationRequest(
      new URLSearchParams({
        client_id: 'app',
        redirect_uri: 'https://app.example/cb',
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        ...extra,
      }),
      client,
      false,
    );

  it('takes a whole number of seconds, and nothing else', () => {
    expect(request({ max_age: '0' })).toMatchObject({ kind: 'valid', request: { maxAge: 0 } });
    expect(request({ max_age: '3600' })).toMatchObject({ kind: 'valid', request: { maxAge: 3600 } });
    const without = request({});
    expect(without.kind).toBe('valid');
    expect(without.kind === 'valid' && without.request).not.toHaveProperty('maxAge');
    for (const value of ['-1', '1.5', '1e3', 'soon', '12345678901']) {
      expect(request({ max_age: value })).toMatchObject({ kind: 'error-redirect', error: 'invalid_request' });
    }
  });

  it('lets a session sign the person in only when recent enough, never with prompt=login', () => {
    const hourAgo = NOW - 3_600_000;
    expect(sessionRecentEnough({}, hourAgo, NOW)).toBe(true);
    expect(sessionRecentEnough({ maxAge: 3600 }, hourAgo, NOW)).toBe(true);
    expect(sessionRecentEnough({ maxAge: 3599 }, hourAgo, NOW)).toBe(false);
    expect(sessionRecentEnough({ maxAge: 0 }, NOW - 1, NOW)).toBe(false);
    expect(sessionRecentEnough({ prompt: 'login' }, NOW, NOW)).toBe(false);
  });
});

describe('federated authentication time', () => {
  it('asks the upstream for max_age=0 on prompt=login (OpenID Connect Core 3.1.2.1), else the application’s max_age', () => {
    expect(upstreamMaxAge({})).toBeUndefined();
    expect(upstreamMaxAge({ maxAge: 300 })).toBe(300);
    expect(upstreamMaxAge({ prompt: 'login' })).toBe(0);
    expect(upstreamMaxAge({ prompt: 'login', maxAge: 300 })).toBe(0);
    expect(upstreamMaxAge({ prompt: 'none', maxAge: 300 })).toBe(300);
  });

  it('counts the time since the person was sent upstream into the max_age checked at the callback', () => {
    expect(maxAgeAtCallback(300, NOW, NOW)).toBe(300);
    expect(maxAgeAtCallback(0, NOW - 90_500, NOW)).toBe(91);
    // A callback before the start (clocks of two instances): nothing taken off.
    expect(maxAgeAtCallback(300, NOW + 5_000, NOW)).toBe(300);
  });

  it('counts the earliest auth_time from the sending, with a clock skew of seconds, not a minute', () => {
    const sent = NOW / 1000;
    expect(AUTH_TIME_SKEW_SECONDS).toBe(5);
    expect(earliestAuthTime(0, NOW)).toBe(sent - 5);
    expect(earliestAuthTime(0, NOW + 999)).toBe(sent - 5);
    expect(earliestAuthTime(300, NOW)).toBe(sent - 305);
  });

  it("takes the upstream's auth_time, never later than now", () => {
    const seconds = NOW / 1000;
    expect(federatedAuthTime(undefined, NOW)).toBe(NOW);
    expect(federatedAuthTime(seconds - 600, NOW)).toBe(NOW - 600_000);
    expect(federatedAuthTime(seconds + 600, NOW)).toBe(NOW);
    // Of the very second of a change (whole seconds): from the change, which ends earlier sessions.
    expect(federatedAuthTime(seconds - 60, NOW, NOW - 60_000 + 400)).toBe(NOW - 60_000 + 400);
    expect(federatedAuthTime(seconds - 60, NOW, NOW - 900_000)).toBe(NOW - 60_000);
  });

  it('calls an upstream sign-in from before the account changed ended, never raising its time', () => {
    const seconds = NOW / 1000;
    // A password set (or a deactivation) since then ended it: the person signs in upstream again.
    expect(upstreamSignInEnded(seconds - 600, NOW - 60_000)).toBe(true);
    // One of the same second, or later, stands (auth_time is whole seconds); none given is now.
    expect(upstreamSignInEnded(seconds - 60, NOW - 60_000 + 999)).toBe(false);
    expect(upstreamSignInEnded(seconds - 600, NOW - 900_000)).toBe(false);
    expect(upstreamSignInEnded(undefined, NOW)).toBe(false);
    expect(upstreamSignInEnded(seconds - 600)).toBe(false);
  });
});
