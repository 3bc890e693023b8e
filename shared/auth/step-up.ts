import { RECENT_SIGN_IN_SECONDS, signedInRecently } from '../domain/recent-sign-in.js';
import { insufficientUserAuthentication } from '../http/errors.js';
import type { Principal } from './principal.js';

/**
 * Refuses a person's change of their own account unless their sign-in is recent (RFC 9470: 401
 * `insufficient_user_authentication` with `max_age`), so a stolen access token cannot hand the
 * account over. API clients are not people: their changes are the administrator's.
 */
export const requireRecentSignIn = (principal: Principal, what: string, now = Date.now()): void => {
  if (principal.type !== 'user' || signedInRecently(principal.authTime, now)) return;
  throw insufficientUserAuthentication(
    `${what} needs a sign-in of the last ${RECENT_SIGN_IN_SECONDS / 60} minutes: sign in again (max_age=${RECENT_SIGN_IN_SECONDS}) and retry`,
    RECENT_SIGN_IN_SECONDS,
  );
};
