import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { signinRoutes } from '../api/routes/signin.js';
import { hintMatchesSession, type IdTokenHint } from '../domain/logout-hint.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { clearCookie, readCookie } from '../pages/cookies.js';
import { formOf, secureCookies, sessionCsrfHolds, sessionCsrfToken } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import { confirmSignOutPage, errorPage, signedOutPage } from '../pages/sign-in-pages.js';
import { getApiClient } from '../store/api-client-repository.js';
import { getOrganization } from '../store/organization-repository.js';
import { endSession, liveSession } from '../store/sign-in-state.js';
import { idTokenHint } from './id-token-hints.js';
import { personActor, personTarget, recordSignInEvent, signInDetails } from './sign-in-audit.js';
import type { Page } from './sign-in-steps.js';

/**
 * OpenID Connect RP-Initiated Logout 1.0. An ID token hint of this browser's session (its person
 * and sign-in) proves its application asked: the session ends at once. Anything else, which any
 * site can send, gets a page asking the person (section 4), whose form is bound to the session;
 * only that form's POST signs out. The browser goes back to a post-logout redirect URI only when
 * a valid hint names the application that registered it.
 */

/** The parameters of a logout request this endpoint reads (and its confirmation form carries). */
const PARAMETERS = ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state'] as const;

interface LogoutRequest {
  hint: IdTokenHint | undefined;
  /** Where to send the browser afterwards, `state` included. */
  redirect: string | undefined;
  parameters: [string, string][];
}

const logoutRequestOf = async (parameters: URLSearchParams): Promise<LogoutRequest | Page> => {
  const token = parameters.get('id_token_hint');
  const hint = token ? await idTokenHint(token) : undefined;
  if (token && !hint) return errorPage(400, 'The id_token_hint is not an ID token of this service.');
  const named = parameters.get('client_id');
  if (hint && named && hint.clientId !== named) {
    return errorPage(400, 'client_id does not match the application of the id_token_hint.');
  }
  const postLogoutUri = parameters.get('post_logout_redirect_uri');
  let redirect: string | undefined;
  // Without a hint nothing proves which application asked: no redirect on anyone's say-so.
  if (hint && postLogoutUri) {
    const client = await getApiClient(hint.clientId);
    // Never anywhere the application did not register (no open redirect).
    if (!client?.postLogoutRedirectUris.includes(postLogoutUri)) {
      return errorPage(400, 'The post-logout redirect URI is not registered for this application.');
    }
    const target = new URL(postLogoutUri);
    const state = parameters.get('state');
    if (state) target.searchParams.set('state', state);
    redirect = target.toString();
  }
  return {
    hint,
    redirect,
    parameters: PARAMETERS.flatMap((name) => {
      const value = parameters.get(name);
      return value ? [[name, value] as [string, string]] : [];
    }),
  };
};

const isPage = (outcome: LogoutRequest | Page): outcome is Page => 'statusCode' in outcome;

const signOut = async (cookie: string | undefined, request: LogoutRequest): Promise<Page> => {
  // Signing out ends the refresh tokens the session began without offline_access too.
  const ended = await endSession(cookie, { revokeFamilies: true });
  if (ended) {
    countMetric('SignOuts');
    logger.info('signed out', { organizationId: ended.organizationId, userId: ended.userId });
    // The delete answers the session it ended, which a transaction cannot: recorded after it.
    await recordSignInEvent({
      organizationId: ended.organizationId,
      action: 'session.ended',
      actor: personActor({ id: ended.userId }),
      targets: [personTarget({ id: ended.userId })],
      // The application is known only from a hint; the person's sign-in from the session.
      signIn: signInDetails(request.hint?.clientId, { amr: ended.amr }),
    });
  }
  // Ending a session, the browser binding goes too: a sign-in left open at a step (consent, a
  // second factor, the passkey offer), the person having typed their password in it, is bound to
  // that cookie alone, and whoever uses the browser next must not be able to finish it. Without a
  // session it stays: any site can send a browser here, and its sign-ins under way would end.
  const cookies = [
    clearCookie('session', secureCookies()),
    ...(ended ? [clearCookie('browser', secureCookies())] : []),
  ];
  return request.redirect ? seeOther(request.redirect, cookies) : signedOutPage(cookies);
};

/** `GET /oauth2/logout`: signs out at once for a hint of this session, asks otherwise. */
export const logout = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const request = await logoutRequestOf(new URLSearchParams(event.rawQueryString));
  if (isPage(request)) return request;
  const cookie = readCookie(event.cookies, 'session', secureCookies());
  const session = await liveSession(cookie);
  // No live session: nothing to sign out of, nothing to ask.
  if (!cookie || !session || hintMatchesSession(request.hint, session)) return signOut(cookie, request);
  const organization = await getOrganization(session.organizationId);
  return confirmSignOutPage({
    organizationName: organization?.name ?? session.organizationId,
    csrf: sessionCsrfToken(cookie),
    parameters: request.parameters,
  });
};

/**
 * `POST /oauth2/logout`: the confirmation form, valid only with the token of this session; or an
 * application's logout request sent as a form (RP-Initiated Logout 1.0 section 2: the OP supports
 * GET and POST), which carries no token of ours. That one comes from the application's site, so
 * the browser leaves the `SameSite=Lax` session cookie out: it is sent on, as the GET (a top-level
 * GET carries the cookie), rather than answered as if no one were signed in.
 */
export const confirmLogout = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const form = formOf(event);
  if (form && !form.has('csrf')) {
    const forwarded = new URLSearchParams(
      PARAMETERS.flatMap((name) => form.getAll(name).map((value): [string, string] => [name, value])),
    );
    return seeOther(`${signinRoutes.endSession.path}?${forwarded}`);
  }
  if (!form || !sessionCsrfHolds(event, form)) {
    return errorPage(
      403,
      'This sign-out form could not be verified, so nothing changed. Go back to the application and sign out again.',
    );
  }
  const request = await logoutRequestOf(form);
  if (isPage(request)) return request;
  return signOut(readCookie(event.cookies, 'session', secureCookies()), request);
};
