/**
 * A password as it is hashed and judged: Unicode NFKC (NIST SP 800-63B 5.1.1.2), so `é` sent as
 * one character or as `e` and an accent, or a full-width `１`, is one password. Apart from the
 * password rules, whose list of common passwords only the functions that set passwords carry.
 */
export const normalizedPassword = (password: string): string => password.normalize('NFKC');

/** Whether two passwords typed are one (a new password and its confirmation). */
export const samePassword = (a: string, b: string): boolean =>
  normalizedPassword(a) === normalizedPassword(b);
