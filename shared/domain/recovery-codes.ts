import { createHash, randomBytes } from 'node:crypto';
import { signInRecentEnoughToAddCredential } from './credential-recency.js';

/**
 * Recovery codes: 10 single-use codes shown once after TOTP enrolment (DECISIONS.md), each 50
 * random bits written as two groups of five lowercase base32 characters, e.g. `k3m7q-x2pzd`.
 * Being random, they are stored as SHA-256 digests (no slow hash needed), salted with the owner's
 * random id: 50 bits are below the 112 OWASP ASVS 2.6.2 asks of an unsalted secret, and the salt
 * makes every person's codes a search of their own.
 */

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

const newRecoveryCode = (): string => {
  const chars = [...randomBytes(10)].map((byte) => ALPHABET[byte & 31]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
};

export const newRecoveryCodes = (): string[] => Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);

/** The digest a code of `userId` is stored as. */
export const recoveryCodeDigest = (userId: string, code: string): string =>
  createHash('sha256').update(`${userId}:${code}`).digest('base64url');

/** The code as typed, tolerant of case, spaces and a missing dash; undefined if it is not one. */
export const normalisedRecoveryCode = (typed: string): string | undefined => {
  const chars = typed.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{10}$/.test(chars) ? `${chars.slice(0, 5)}-${chars.slice(5)}` : undefined;
};

/**
 * Why the account page may not replace a person's recovery codes, or undefined when it may. The
 * codes stand in for the authenticator app, so a stolen session cookie must not be enough to get
 * fresh ones: the sign-in must be recent and have used a second factor, as adding a credential.
 */
export const newRecoveryCodesRefusal = (
  session: { authTime: number; amr: readonly string[] },
  hasAuthenticatorApp: boolean,
  now: number,
): string | undefined => {
  if (!hasAuthenticatorApp) return 'Recovery codes come with an authenticator app, and you have none set up.';
  if (!signInRecentEnoughToAddCredential(session.authTime, now))
    return 'To make new recovery codes, sign in again through your application: your sign-in is more than 15 minutes old.';
  if (!session.amr.includes('mfa'))
    return 'To make new recovery codes, sign in again with two-step verification.';
  return undefined;
};
