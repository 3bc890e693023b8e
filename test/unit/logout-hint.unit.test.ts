import { describe, expect, it } from 'vitest';
import { hintMatchesSession, type IdTokenHint } from '../../shared/domain/logout-hint.js';

/** Whether an ID token hint signs a session out without asking: only one issued for that very sign-in. */

const SIGNED_IN_AT = Date.UTC(2026, 0, 5, 9, 30, 12, 345);
const session = { organizationId: 'org-1', userId: 'user-1', authTime: SIGNED_IN_AT };
const hint: IdTokenHint = {
  clientId: 'app-1',
  organizationId: 'org-1',
  userId: 'user-1',
  authTime: Math.floor(SIGNED_IN_AT / 1000),
};

describe('hintMatchesSession', () => {
  it('matches the hint of the same person and sign-in (auth_time is whole seconds)', () => {
    expect(hintMatchesSession(hint, session)).toBe(true);
  });

  it.each([
    ['another person', { userId: 'user-2' }],
    ['the same user id in another organization', { organizationId: 'org-2' }],
    ['another sign-in of the same person, a second later', { authTime: hint.authTime + 1 }],
    ['an earlier sign-in of the same person', { authTime: hint.authTime - 1 }],
  ])('does not match %s', (_case, change) => {
    expect(hintMatchesSession({ ...hint, ...change }, session)).toBe(false);
  });

  it('does not match without a hint', () => {
    expect(hintMatchesSession(undefined, session)).toBe(false);
  });
});
