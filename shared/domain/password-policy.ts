import { COMMON_PASSWORDS } from './common-passwords.js';

/**
 * The password rules of DECISIONS.md: 12 to 1,024 characters, not the email, not one of the
 * most common or breached passwords (a list shipped with the service: no network call). Pure.
 */

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

let common: ReadonlySet<string> | undefined;

/** What is wrong with a new password, in words for the person choosing it; undefined if nothing. */
export const passwordProblem = (password: string, email: string): string | undefined => {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH)
    return `Use at most ${MAX_PASSWORD_LENGTH.toLocaleString('en')} characters.`;
  const folded = password.trim().toLowerCase();
  if (folded === email.trim().toLowerCase()) return 'Do not use your email address as your password.';
  common ??= new Set(COMMON_PASSWORDS);
  if (common.has(folded)) {
    return 'This password is one of the most commonly used or breached passwords. Choose another one.';
  }
  return undefined;
};
