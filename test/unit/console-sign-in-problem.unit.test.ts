import * as oauth from 'oauth4webapi';
import { expect, it } from 'vitest';
import { SIGN_IN_ENDED, signInProblem } from '../../console/src/sign-in-problem.js';

const answered = (parameters: Record<string, string>) =>
  new oauth.AuthorizationResponseError('authorization response', { cause: new URLSearchParams(parameters) });

it('says nothing when an attempt without a page needs one, and what went wrong otherwise', () => {
  for (const error of [
    'login_required',
    'interaction_required',
    'consent_required',
    'account_selection_required',
  ]) {
    expect(signInProblem(answered({ error }), true)).toBeUndefined();
    // A sign-in the person started must not end in silence.
    expect(signInProblem(answered({ error }), false)).toBe(
      `The sign-in did not complete: ${error}. Sign in again.`,
    );
  }
  expect(signInProblem(answered({ error: 'access_denied' }), true)).toBe(
    'The sign-in was declined or cancelled. Sign in again to go on.',
  );
  expect(
    signInProblem(
      answered({ error: 'invalid_request', error_description: `No\n${'such '.repeat(60)}` }),
      false,
    ),
  ).toBe(`The sign-in did not complete: No ${'such '.repeat(60).slice(0, 197)}. Sign in again.`);
  const refused = new oauth.ResponseBodyError('token response', {
    cause: { error: 'invalid_grant', error_description: 'The code was used already' },
    response: new Response(null, { status: 400 }),
  });
  expect(signInProblem(refused, false)).toBe(
    'The sign-in did not complete: The code was used already. Sign in again.',
  );
  expect(signInProblem(new TypeError('fetch failed'), true)).toBe(
    'The sign-in did not complete. Sign in again.',
  );
  expect(SIGN_IN_ENDED).toContain('Sign in again');
});
