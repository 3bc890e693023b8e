/**
 * How recent a person's sign-in must be for a change of their own that hands the account over: a
 * new email (its reset links go there) or a reset of their second factor. A stolen access token
 * lives 15 minutes; OWASP's Authentication and MFA cheat sheets ask for re-authentication before
 * such changes, which RFC 9470 lets a resource server ask for with `max_age`. Pure.
 */
export const RECENT_SIGN_IN_SECONDS = 300;

/** Whether a sign-in at `authTime` (epoch ms; undefined when the token does not say) is recent. */
export const signedInRecently = (authTime: number | undefined, now: number): boolean =>
  authTime !== undefined && now - authTime <= RECENT_SIGN_IN_SECONDS * 1000;
