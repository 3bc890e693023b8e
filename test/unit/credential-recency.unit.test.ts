import { describe, expect, it } from 'vitest';
import {
  RECENT_SIGN_IN_MILLIS,
  sessionMayEnrolAuthenticator,
} from '../../shared/domain/credential-recency.js';

describe('sessionMayEnrolAuthenticator', () => {
  const now = Date.UTC(2026, 10, 28, 12);
  const stale = { authTime: now - RECENT_SIGN_IN_MILLIS - 1, amr: ['pwd'] };
  const mfaAsked = { mfaRequired: true, hasAuthenticatorApp: false };
  it('takes a recent sign-in, up to RECENT_SIGN_IN_MILLIS old', () => {
    expect(
      sessionMayEnrolAuthenticator({ authTime: now - RECENT_SIGN_IN_MILLIS, amr: ['pwd'] }, mfaAsked, now),
    ).toBe(true);
    expect(sessionMayEnrolAuthenticator(stale, mfaAsked, now)).toBe(false);
  });
  it('holds an older one back only when its next step is enrolment', () => {
    expect(sessionMayEnrolAuthenticator(stale, { ...mfaAsked, mfaRequired: false }, now)).toBe(true);
    expect(sessionMayEnrolAuthenticator(stale, { ...mfaAsked, hasAuthenticatorApp: true }, now)).toBe(true);
    expect(sessionMayEnrolAuthenticator({ ...stale, amr: ['pwd', 'mfa'] }, mfaAsked, now)).toBe(true);
  });
});
