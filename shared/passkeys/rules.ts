import { signInRecentEnoughToAddCredential } from '../domain/credential-recency.js';
/**
 * What the service decides about a stored passkey (docs/passkeys.md), free of I/O: how many a
 * person may hold, what a sign-in with one proves (`amr`), whether an assertion's signature
 * counter may be taken and whether its user handle names the passkey's owner.
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

/**
 * WebAuthn L2 7.2 step 6: an assertion's user handle (the owner's id, as registered) must name the
 * passkey's owner; one made before anyone was identified (a first factor) must carry it.
 */
export const userHandleRefusal = (
  userHandle: string | undefined,
  ownerId: string,
  identifiedBefore: boolean,
): 'user handle missing' | 'user handle of another person' | undefined => {
  if (userHandle === undefined) return identifiedBefore ? undefined : 'user handle missing';
  return Buffer.from(userHandle, 'base64url').toString('utf8') === ownerId
    ? undefined
    : 'user handle of another person';
};

/** How long "Not now" keeps a browser from being asked again. */
export const PASSKEY_PROMPT_PAUSE_SECONDS = 30 * 24 * 3600;

/**
 * Whether a sign-in ends by offering to add a passkey: in a browser whose script found WebAuthn
 * (without it the offer could not be taken), after a password (not a passkey, a session or an SSO
 * provider), to a person with none, asked once per sign-in and not in a browser where they said
 * "Not now" lately.
 */
export const shouldOfferPasskey = (sign: {
  browserCapable: boolean;
  amr: readonly string[];
  passkeyCount: number;
  offeredAlready: boolean;
  declinedInThisBrowser: boolean;
}): boolean =>
  sign.browserCapable &&
  sign.amr.includes('pwd') &&
  !sign.amr.some((method) => method === 'hwk' || method === 'swk') &&
  sign.passkeyCount === 0 &&
  !sign.offeredAlready &&
  !sign.declinedInThisBrowser;

/** Why a person whose email domain an SSO provider (`routedTo`, its name) serves adds no passkey. */
export const ssoRoutedRefusal = (routedTo: string) =>
  `Your organization signs you in through ${routedTo}, so your account does not use passkeys.`;

/**
 * Why a session may not add a passkey, or undefined when it may. A person whose email domain an
 * SSO provider serves (`routedTo`, its name) signs in there only, as the password form sends them:
 * a passkey would go around the provider and outlive the provider's own offboarding. Otherwise a
 * stolen session cookie must not be enough to plant a credential of the thief's, so the sign-in
 * must be recent, and multi-factor where the organization asks for MFA.
 */
export const accountAddRefusal = (
  session: { authTime: number; amr: readonly string[] },
  mfaRequired: boolean,
  now: number,
  routedTo?: string,
): string | undefined => {
  if (routedTo !== undefined) return ssoRoutedRefusal(routedTo);
  if (!signInRecentEnoughToAddCredential(session.authTime, now))
    return 'To add a passkey, sign in again through your application: your sign-in is more than 15 minutes old.';
  if (mfaRequired && !session.amr.includes('mfa'))
    return 'To add a passkey, sign in again with two-step verification.';
  return undefined;
};

/** A passkey's id in the API and on the pages: SHA-256 of its WebAuthn credential id, hex. */
export const PASSKEY_ID = /^[0-9a-f]{64}$/;
