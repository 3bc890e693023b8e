/**
 * What the service decides about a stored passkey (docs/passkeys.md), free of I/O: how many a
 * person may hold, what a sign-in with one proves (`amr`), and whether an assertion's signature
 * counter may be taken.
 */

/** Passkeys one person may hold. */
export const MAX_PASSKEYS_PER_USER = 10;

/**
 * A passkey signed in with user verification is a complete multi-factor sign-in (possession and
 * a PIN or biometric). RFC 8176: `hwk` for a key bound to its authenticator, `swk` for one the
 * authenticator may copy elsewhere (backup eligible: a synced passkey).
 */
export const amrOfPasskey = (credential: { backupEligible: boolean }): ['hwk' | 'swk', 'user', 'mfa'] => [
  credential.backupEligible ? 'swk' : 'hwk',
  'user',
  'mfa',
];

export type SignCountVerdict =
  | { accepted: true; next: number }
  /** WebAuthn L2 6.1.1: a counter that did not grow may mean a cloned authenticator. */
  | { accepted: false; reason: 'counter went backwards' };

/**
 * The signature counter of an assertion against the stored one: an authenticator that keeps no
 * counter reports 0 every time (accepted); otherwise the counter must grow.
 */
export const signCountVerdict = (stored: number, received: number): SignCountVerdict => {
  if (stored === 0 && received === 0) return { accepted: true, next: 0 };
  return received > stored
    ? { accepted: true, next: received }
    : { accepted: false, reason: 'counter went backwards' };
};
