import * as oauth from 'oauth4webapi';

/** What the console says when a sign-in or its renewal fails. Pure, unit-tested. */

/**
 * What an attempt without a page (`prompt=none`) answers when the identity provider needs one
 * (OIDC Core 3.1.2.6): the person simply signs in; nothing went wrong.
 */
const NEEDS_A_PAGE = new Set([
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
]);

/** The identity provider's own words, kept to one short line. */
const reasonOf = (error: { error: string; error_description?: string | undefined }) =>
  (error.error_description ?? error.error).replace(/\s+/g, ' ').slice(0, 200);

/** What a failed sign-in says to the person, or undefined when there is nothing to say. */
export const signInProblem = (error: unknown, silent: boolean): string | undefined => {
  if (error instanceof oauth.AuthorizationResponseError) {
    if (silent && NEEDS_A_PAGE.has(error.error)) return undefined;
    if (error.error === 'access_denied')
      return 'The sign-in was declined or cancelled. Sign in again to go on.';
    return `The sign-in did not complete: ${reasonOf(error)}. Sign in again.`;
  }
  if (error instanceof oauth.ResponseBodyError)
    return `The sign-in did not complete: ${reasonOf(error)}. Sign in again.`;
  return 'The sign-in did not complete. Sign in again.';
};

/** Said when the sign-in could not be renewed: it ended (a sign-out elsewhere, an expiry, a new password). */
export const SIGN_IN_ENDED = 'Your sign-in has ended. Sign in again to go on.';
