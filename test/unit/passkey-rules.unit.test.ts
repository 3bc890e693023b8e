import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_MILLIS } from '../../shared/domain/credential-recency.js';
import {
  accountAddRefusal,
  amrOfPasskey,
  PASSKEY_ID,
  shouldOfferPasskey,
  signCountVerdict,
  userHandleRefusal,
} from '../../shared/passkeys/rules.js';
import { identifier } from '../../shared/schemas/common.js';
import { credentialKeyOf } from '../../shared/store/passkeys.js';

describe('amrOfPasskey', () => {
  it('names a device-bound key hwk and a synced (backup-eligible) one swk, both multi-factor', () => {
    expect(amrOfPasskey({ backupEligible: false })).toEqual(['hwk', 'user', 'mfa']);
    expect(amrOfPasskey({ backupEligible: true })).toEqual(['swk', 'user', 'mfa']);
  });
});

describe('signCountVerdict', () => {
  it('accepts a counter that grows, and an authenticator that keeps none (0 and 0)', () => {
    expect(signCountVerdict(0, 0)).toEqual({ accepted: true, next: 0 });
    expect(signCountVerdict(0, 1)).toEqual({ accepted: true, next: 1 });
    expect(signCountVerdict(41, 42)).toEqual({ accepted: true, next: 42 });
  });

  it('refuses a counter that stayed or went backwards once it has counted', () => {
    for (const [stored, received] of [
      [42, 42],
      [42, 7],
      [5, 0],
    ] as const) {
      expect(signCountVerdict(stored, received), `${stored} -> ${received}`).toEqual({
        accepted: false,
        reason: 'counter went backwards',
      });
    }
  });
});

describe('userHandleRefusal', () => {
  const handleOf = (id: string) => Buffer.from(id).toString('base64url');
  it("takes the owner's handle, first factor or second", () => {
    expect(userHandleRefusal(handleOf('user-1'), 'user-1', false)).toBeUndefined();
    expect(userHandleRefusal(handleOf('user-1'), 'user-1', true)).toBeUndefined();
  });
  it('refuses a handle naming anyone else, and a first factor without one', () => {
    expect(userHandleRefusal(handleOf('user-2'), 'user-1', true)).toBe('user handle of another person');
    expect(userHandleRefusal(handleOf('user-1x'), 'user-1', false)).toBe('user handle of another person');
    expect(userHandleRefusal(undefined, 'user-1', false)).toBe('user handle missing');
  });
  it('lets a second factor leave it out (the person was identified before)', () => {
    expect(userHandleRefusal(undefined, 'user-1', true)).toBeUndefined();
  });
});

describe('shouldOfferPasskey', () => {
  const offered = {
    browserCapable: true,
    amr: ['pwd'],
    passkeyCount: 0,
    offeredAlready: false,
    declinedInThisBrowser: false,
  };

  it('offers one after a password, with MFA too, in a browser with WebAuthn, to a person with none', () => {
    expect(shouldOfferPasskey(offered)).toBe(true);
    expect(shouldOfferPasskey({ ...offered, amr: ['pwd', 'otp', 'mfa'] })).toBe(true);
  });

  it('does not offer one for any single reason against it', () => {
    for (const against of [
      { browserCapable: false },
      { amr: ['fed'] },
      { amr: ['hwk', 'user', 'mfa'] },
      { amr: ['pwd', 'swk', 'user', 'mfa'] },
      { passkeyCount: 1 },
      { offeredAlready: true },
      { declinedInThisBrowser: true },
    ])
      expect(shouldOfferPasskey({ ...offered, ...against }), JSON.stringify(against)).toBe(false);
  });
});

describe('accountAddRefusal', () => {
  const now = 1_800_000_000_000;

  it('lets a recent sign-in add a passkey, multi-factor where the organization asks for it', () => {
    expect(
      accountAddRefusal({ authTime: now - RECENT_SIGN_IN_MILLIS, amr: ['pwd'] }, false, now),
    ).toBeUndefined();
    expect(accountAddRefusal({ authTime: now, amr: ['pwd', 'otp', 'mfa'] }, true, now)).toBeUndefined();
  });

  it('refuses an older sign-in, and one without MFA where it is asked for', () => {
    expect(
      accountAddRefusal({ authTime: now - RECENT_SIGN_IN_MILLIS - 1, amr: ['pwd'] }, false, now),
    ).toMatch(/more than 15 minutes old/);
    expect(accountAddRefusal({ authTime: now, amr: ['pwd'] }, true, now)).toMatch(/two-step verification/);
  });

  it('refuses anyone whose email domain an SSO provider serves, however recent their sign-in', () => {
    const fresh = { authTime: now, amr: ['pwd', 'otp', 'mfa'] };
    expect(accountAddRefusal(fresh, true, now)).toBeUndefined();
    expect(accountAddRefusal(fresh, true, now, 'Workforce')).toBe(
      'Your organization signs you in through Workforce, so your account does not use passkeys.',
    );
  });
});

describe('credentialKeyOf', () => {
  it("names every credential by an identifier (an audit target's id, a path segment), whatever its id", () => {
    // A base64url digest began with - or _ for one credential in 32: its audit records broke the listing.
    const seed = Date.now();
    console.log(`credentialKeyOf property seed ${seed}`);
    fc.assert(
      fc.property(fc.base64String({ minLength: 16, maxLength: 1364 }), (credentialId) => {
        const key = credentialKeyOf(credentialId);
        expect(identifier.safeParse(key).success).toBe(true);
        expect(key).toMatch(PASSKEY_ID);
      }),
      { seed, numRuns: 500 },
    );
  });
});
