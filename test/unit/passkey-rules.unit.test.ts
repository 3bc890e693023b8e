import { describe, expect, it } from 'vitest';
import { amrOfPasskey, signCountVerdict } from '../../shared/passkeys/rules.js';

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
