/**
 * Adding a credential from a kept session (a passkey on the account page, an authenticator app
 * when the organization starts asking for MFA) needs a sign-in at most this old: a stolen session
 * cookie must not be enough to plant a credential of the thief's (OWASP: re-authenticate before
 * changing credentials).
 */
export const RECENT_SIGN_IN_MILLIS = 15 * 60 * 1000;

export const signInRecentEnoughToAddCredential = (authTime: number, now: number): boolean =>
  now - authTime <= RECENT_SIGN_IN_MILLIS;

/**
 * Whether a kept session may go on to setting up an authenticator app: not when the organization
 * asks for MFA, the session has none, the person has no app yet (so the next step is enrolment)
 * and the session's sign-in is older than RECENT_SIGN_IN_MILLIS. Then the password is asked again.
 */
export const sessionMayEnrolAuthenticator = (
  session: { authTime: number; amr: readonly string[] },
  person: { mfaRequired: boolean; hasAuthenticatorApp: boolean },
  now: number,
): boolean =>
  !person.mfaRequired ||
  session.amr.includes('mfa') ||
  person.hasAuthenticatorApp ||
  signInRecentEnoughToAddCredential(session.authTime, now);
