import { createHash } from 'node:crypto';
import { COMMON_PASSWORD_PREFIXES } from './common-passwords.js';
import { normalizedPassword } from './password-normalization.js';

/**
 * The password rules of DECISIONS.md: 12 to 1,024 characters, not the email, not one of the
 * most common or breached passwords (a list shipped with the service: no network call). Pure.
 */

export const MIN_PASSWORD_LENGTH = 12;

import { MAX_PASSWORD_LENGTH } from './limits.js';

export { MAX_PASSWORD_LENGTH };

let common: ReadonlySet<number> | undefined;

const prefixOf = (digest: Buffer, offset = 0) => digest.readUInt32BE(offset);

/** Whether a (lowercased) password is on the shipped list: its SHA-256 prefix is. */
const isCommon = (folded: string): boolean => {
  if (!common) {
    const bytes = Buffer.from(COMMON_PASSWORD_PREFIXES, 'base64');
    common = new Set(
      Array.from({ length: bytes.length / 4 }, (_unused, index) => prefixOf(bytes, index * 4)),
    );
  }
  return common.has(prefixOf(createHash('sha256').update(folded).digest()));
};

/**
 * What is wrong with a new password, in words for the person choosing it; undefined if nothing.
 * Judged as it is hashed (normalized): a full-width common password is the common password, and
 * six accented letters typed as twelve code points are six characters. The most is counted as
 * typed, as the sign-in form cuts what is typed.
 */
export const passwordProblem = (password: string, email: string): string | undefined => {
  const normalized = normalizedPassword(password);
  if ([...normalized].length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if ([...password].length > MAX_PASSWORD_LENGTH)
    return `Use at most ${MAX_PASSWORD_LENGTH.toLocaleString('en')} characters.`;
  const folded = normalized.trim().toLowerCase();
  if (folded === normalizedPassword(email).trim().toLowerCase())
    return 'Do not use your email address as your password.';
  if (isCommon(folded)) {
    return 'This password is one of the most commonly used or breached passwords. Choose another one.';
  }
  return undefined;
};
