import { describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_SECONDS, signedInRecently } from '../../shared/domain/recent-sign-in.js';

describe('a recent sign-in (changes that hand an account over)', () => {
  const now = 1_800_000_000_000;

  it('is one of the last 5 minutes, to the millisecond', () => {
    expect(RECENT_SIGN_IN_SECONDS).toBe(300);
    expect(signedInRecently(now, now)).toBe(true);
    expect(signedInRecently(now - 300_000, now)).toBe(true);
    expect(signedInRecently(now - 300_001, now)).toBe(false);
  });

  it('is never one the token does not date', () => {
    expect(signedInRecently(undefined, now)).toBe(false);
  });
});
