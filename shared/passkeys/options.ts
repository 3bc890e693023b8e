import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { pendingRequestOf, signInTarget } from '../auth/sign-in-requests.js';
import { EXPIRED, type Page } from '../auth/sign-in-steps.js';
import { errorBody } from '../http/error-mapping.js';
import { ApiError } from '../http/errors.js';
import { readCookie } from '../pages/cookies.js';
import { formOf, secureCookies, sessionCsrfHolds } from '../pages/forms.js';
import { saveChallenge } from '../store/passkey-challenges.js';
import { listPasskeys } from '../store/passkeys.js';
import type { AuthorizationRequestRecord } from '../store/sign-in-entities.js';
import { getUser } from '../store/user-repository.js';
import { accountOf } from './account-session.js';
import { MAX_PASSKEYS_PER_USER } from './rules.js';

/**
 * `POST /signin/passkeys/options`: what the pages' script asks before a ceremony. Answers JSON
 * options with a fresh challenge, kept for the ceremony and browser it was asked for: a sign-in
 * (or second factor) of a pending request, the passkey offered after a password, or the account
 * page's session.
 */

/** The WebAuthn ceremonies, loaded on the first that is needed (ceremonies.ts says why). */
export const ceremonies = () => import('./ceremonies.js');

const json = (status: number, body: unknown): Page => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

const refuse = (event: APIGatewayProxyEventV2, status: number, message: string) =>
  json(status, errorBody(new ApiError(status, message), event.requestContext.requestId));

/** The binding of a ceremony of a pending request: its purpose, the request and this browser. */
export const requestBinding = (
  purpose: 'sign-in' | 'enrol',
  requestId: string,
  event: APIGatewayProxyEventV2,
): string => `${purpose}:${requestId}:${readCookie(event.cookies, 'browser', secureCookies()) ?? ''}`;

/** A pending request past its password (and MFA), offered a passkey: the person it knows. */
export const offeredPerson = (pending: AuthorizationRequestRecord | undefined) =>
  pending?.userId && pending.passkeyOffered ? pending.userId : undefined;

const signInOptions = async (event: APIGatewayProxyEventV2, form: URLSearchParams) => {
  const pending = await pendingRequestOf(event, form.get('request'));
  if (!pending) return undefined;
  // A second factor: only the person's own passkeys. A first: any discoverable one.
  const allowed = pending.userId ? await listPasskeys(pending.organizationId, pending.userId) : undefined;
  return {
    options: await (await ceremonies()).authenticationOptions(allowed),
    binding: requestBinding('sign-in', pending.id, event),
  };
};

const enrolOptions = async (event: APIGatewayProxyEventV2, form: URLSearchParams) => {
  const pending = await pendingRequestOf(event, form.get('request'));
  const userId = offeredPerson(pending);
  if (!pending || !userId) return undefined;
  const [user, target, existing] = await Promise.all([
    getUser(pending.organizationId, userId, true),
    signInTarget(pending.organizationId, pending.clientId),
    listPasskeys(pending.organizationId, userId),
  ]);
  if (user?.status !== 'ACTIVE') return undefined;
  return {
    options: await (await ceremonies()).registrationOptions(user, target.names.organizationName, existing),
    binding: requestBinding('enrol', pending.id, event),
  };
};

export const passkeyOptions = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const form = formOf(event);
  const purpose = form?.get('purpose');
  if (!form || (purpose !== 'sign-in' && purpose !== 'enrol' && purpose !== 'account'))
    return refuse(event, 400, 'The passkey request could not be read. Reload the page and try again.');
  if (purpose === 'account') {
    const account = await accountOf(event);
    if (!account || !sessionCsrfHolds(event, form))
      return refuse(event, 401, 'You are not signed in. Sign in through your application, then try again.');
    if (account.addRefusal) return refuse(event, 403, account.addRefusal);
    const existing = await listPasskeys(account.user.organizationId, account.user.id);
    if (existing.length >= MAX_PASSKEYS_PER_USER)
      return refuse(
        event,
        409,
        `You hold ${MAX_PASSKEYS_PER_USER} passkeys, the most a person may. Remove one first.`,
      );
    const options = await (await ceremonies()).registrationOptions(
      account.user,
      account.organizationName,
      existing,
    );
    await saveChallenge(options.challenge, account.binding);
    return json(200, options);
  }
  const ceremony = purpose === 'sign-in' ? await signInOptions(event, form) : await enrolOptions(event, form);
  if (!ceremony) return refuse(event, 400, EXPIRED);
  await saveChallenge(ceremony.options.challenge, ceremony.binding);
  return json(200, ceremony.options);
};
