import { describe, expect, it } from 'vitest';
import { RECENT_SIGN_IN_MILLIS } from '../../shared/domain/credential-recency.js';
import {
  newRecoveryCodes,
  newRecoveryCodesRefusal,
  normalisedRecoveryCode,
} from '../../shared/domain/recovery-codes.js';
import {
  base32Decode,
  base32Encode,
  hotp,
  matchingStep,
  newTotpSecret,
  otpauthUri,
  totpStep,
} from '../../shared/domain/totp.js';

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890", 8-digit codes at these times.
const RFC_SEED = Buffer.from('12345678901234567890');
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(RFC_VECTORS)('answers the RFC test vector at %i s', (seconds, code) => {
    expect(hotp(RFC_SEED, totpStep(seconds * 1000), 8)).toBe(code);
  });

  it('answers RFC 4226 appendix D HOTP values', () => {
    expect([0, 1, 2, 9].map((counter) => hotp(RFC_SEED, counter))).toEqual([
      '755224',
      '287082',
      '359152',
      '520489',
    ]);
  });

  it('round-trips base32 (RFC 4648 test vectors)', () => {
    const vectors = ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'];
    expect(vectors.map((text) => base32Encode(Buffer.from(text)))).toEqual([
      '',
      'MY',
      'MZXQ',
      'MZXW6',
      'MZXW6YQ',
      'MZXW6YTB',
      'MZXW6YTBOI',
    ]);
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    expect(base32Decode('mzxw6ytboi======').toString()).toBe('foobar');
    expect(() => base32Decode('MZ1')).toThrow('Not a base32 string');
    // Padding only at the end.
    expect(() => base32Decode('MZ=XW6YTBOI')).toThrow('Not a base32 string');
  });

  it('accepts the current step and one either side, nothing further, and only six digits', () => {
    const secret = newTotpSecret();
    const key = base32Decode(secret);
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    expect(matchingStep(secret, hotp(key, step), now)).toBe(step);
    expect(matchingStep(secret, hotp(key, step - 1), now)).toBe(step - 1);
    expect(matchingStep(secret, hotp(key, step + 1), now)).toBe(step + 1);
    const far = [step - 2, step + 2].map((other) => hotp(key, other));
    for (const code of far.filter((code) => ![step - 1, step, step + 1].some((s) => hotp(key, s) === code))) {
      expect(matchingStep(secret, code, now)).toBeUndefined();
    }
    expect(matchingStep(secret, `${hotp(key, step)}0`, now)).toBeUndefined();
    expect(matchingStep(secret, 'abcdef', now)).toBeUndefined();
  });

  it('makes 160-bit secrets and an otpauth URI authenticator apps read', () => {
    const secret = newTotpSecret();
    expect(base32Decode(secret)).toHaveLength(20);
    const uri = new URL(otpauthUri({ issuer: 'Acme Corp', account: 'ann@example.com', secret }));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Acme Corp:ann@example.com');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret,
      issuer: 'Acme Corp',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('recovery codes', () => {
  it('makes 10 distinct codes that read back as typed with spaces, case or no dash', () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
      expect(normalisedRecoveryCode(` ${code.toUpperCase().replace('-', ' ')} `)).toBe(code);
    }
    expect(normalisedRecoveryCode('123456')).toBeUndefined();
    expect(normalisedRecoveryCode('aaaaa-aaaa1')).toBeUndefined();
    expect(normalisedRecoveryCode('aaaaa-aaaaa2')).toBeUndefined();
    expect(normalisedRecoveryCode('2aaaaa-aaaaa')).toBeUndefined();
  });

  it('are made anew for a person with an app, signed in within 15 minutes with a second factor', () => {
    const now = 1_800_000_000_000;
    const allowed = { authTime: now - RECENT_SIGN_IN_MILLIS, amr: ['pwd', 'otp', 'mfa'] };
    expect(newRecoveryCodesRefusal(allowed, true, now)).toBeUndefined();
    expect(newRecoveryCodesRefusal(allowed, false, now)).toContain('you have none set up');
    expect(newRecoveryCodesRefusal({ ...allowed, authTime: allowed.authTime - 1 }, true, now)).toContain(
      'more than 15 minutes old',
    );
    expect(newRecoveryCodesRefusal({ ...allowed, amr: ['pwd'] }, true, now)).toContain(
      'sign in again with two-step verification',
    );
  });
});
