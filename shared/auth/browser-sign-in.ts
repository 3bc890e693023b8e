import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { signinRoutes } from '../api/routes/signin.js';
import { config } from '../config.js';
import {
  checkAuthorizationRequest,
  redirectBack,
  sessionRecentEnough,
  signInStillStands,
} from '../domain/authorization.js';
import { sessionMayEnrolAuthenticator } from '../domain/credential-recency.js';
import { MAX_PASSWORD_LENGTH } from '../domain/limits.js';
import { FAILURES_BEFORE_LOCKOUT, lockoutMillis } from '../domain/sign-in-lockout.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { readCookie } from '../pages/cookies.js';
import { browserBinding, formOf, secureCookies } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import { errorPage, offered, signInPage, tooManyAttemptsPage } from '../pages/sign-in-pages.js';
import { getApiClient } from '../store/api-client-repository.js';
import { replacePasswordHash } from '../store/credentials.js';
import { isPushedRequestUri, pushAuthorizationRequest, takePushedRequest } from '../store/pushed-requests.js';
import {
  providerForEmail,
  providerWithdrawn,
  routedAround,
  signInOptions,
} from '../store/sign-in-providers.js';
import {
  type CredentialCheck,
  clearSignInFailures,
  endCredentialCheck,
  liveSession,
  recordSignInFailure,
  renewSession,
  reserveCredentialCheck,
  saveAuthorizationRequest,
  sessionDigestOf,
} from '../store/sign-in-state.js';
import { findUserByEmail, getUser, type UserRecord } from '../store/user-repository.js';
import { idTokenHint } from './id-token-hints.js';
import {
  cheaperToCheck,
  hashPassword,
  needsRehash,
  unguessablePasswordHash,
  verifyPassword,
} from './passwords.js';
import { CLIENT_CREDENTIALS, PUSHED_REQUEST_LIMIT } from './pushed-authorization.js';
import {
  attemptedEmailActor,
  personActor,
  personTarget,
  recordSignInEvent,
  signInDetails,
} from './sign-in-audit.js';
import { pendingRequestOf, signInTarget, tooManyAttempts } from './sign-in-requests.js';
import { continueSignIn, EXPIRED, type Page, providerLocation } from './sign-in-steps.js';
import { CLIENT_ID } from './token-request.js';

/**
 * The browser side of OpenID Connect sign-in: the authorization endpoint and the sign-in form
 * (RP-initiated logout is `logout.ts`). Protocol errors go back to the application only once its
 * client and redirect URI are verified; everything else is a page of ours.
 */

const liveClient = async (clientId: string | null) =>
  clientId && CLIENT_ID.test(clientId) ? getApiClient(clientId) : undefined;

/** `GET /oauth2/authorize` (OpenID Connect Core 3.1.2). */
export const authorize = (event: APIGatewayProxyEventV2): Promise<Page> =>
  authorizeWith(event, new URLSearchParams(event.rawQueryString));

/**
 * `POST /oauth2/authorize`: the same request, its parameters posted (OpenID Connect Core 3.1.2.1),
 * sent on as a GET. A cross-site post carries no `SameSite=Lax` cookie: answered here, it would
 * reuse no session and give the browser a new binding, ending its sign-ins under way in other
 * tabs (which any site could do at will). So a request the GET would take is kept for a minute,
 * like a pushed request (but satisfying no application that must push, and read again by a
 * reload), and the browser comes back with a GET naming it, which carries its cookies.
 */
export const authorizeByPost = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const form = formOf(event);
  if (!form) return errorPage(400, 'The authorization request could not be read: post it as a form.');
  const clientId = form.get('client_id');
  const requestUri = form.get('request_uri');
  // A request_uri of ours is a short handle: sent on as it is, to be taken by the GET.
  if (
    clientId &&
    CLIENT_ID.test(clientId) &&
    requestUri &&
    isPushedRequestUri(requestUri) &&
    requestUri.length <= 128
  )
    return onToGet(clientId, requestUri);
  // Only a request the GET would take is kept: anything else is answered here as the GET would.
  const client = await liveClient(clientId);
  const parameters = new URLSearchParams([...form].filter(([name]) => !CLIENT_CREDENTIALS.has(name)));
  const outcome = checkAuthorizationRequest(parameters, client, false);
  if (outcome.kind !== 'valid') return refusalOf(outcome);
  if (Buffer.byteLength(parameters.toString()) > PUSHED_REQUEST_LIMIT.bytes) {
    return errorPage(400, `The authorization request is larger than ${PUSHED_REQUEST_LIMIT.said}.`);
  }
  const { clientId: checked } = outcome.request;
  return onToGet(checked, await pushAuthorizationRequest(checked, parameters, Date.now(), 'posted'));
};

/** A request refused: a page of ours, or back to the application once its redirect URI is known. */
const refusalOf = (
  outcome: Exclude<ReturnType<typeof checkAuthorizationRequest>, { kind: 'valid' }>,
): Page => {
  if (outcome.kind === 'error-page') return errorPage(400, outcome.message);
  const { redirectUri, error, description, state } = outcome;
  return seeOther(
    redirectBack(redirectUri, { error, error_description: description, state }, config().publicOrigin),
  );
};

const onToGet = (clientId: string, requestUri: string) =>
  seeOther(
    `${signinRoutes.authorize.path}?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`,
  );

/**
 * The request's parameters: those sent, or those the application pushed (RFC 9126), which a
 * `request_uri` names for its own client, once; undefined when that is unknown, used or expired.
 * Parameters sent beside a `request_uri` are not taken (section 4).
 */
const requestOf = async (
  sent: URLSearchParams,
): Promise<{ query: URLSearchParams; pushed: boolean } | undefined> => {
  const requestUri = sent.get('request_uri');
  const clientId = sent.get('client_id');
  // Any other request_uri is refused with request_uri_not_supported, as before pushing existed
  // (or, for an application that must push, as a request not pushed).
  if (requestUri === null || !isPushedRequestUri(requestUri)) return { query: sent, pushed: false };
  const taken = clientId ? await takePushedRequest(requestUri, clientId) : undefined;
  return taken && { query: taken.parameters, pushed: taken.pushed };
};

const authorizeWith = async (event: APIGatewayProxyEventV2, sent: URLSearchParams): Promise<Page> => {
  const taken = await requestOf(sent);
  if (!taken) {
    return errorPage(
      400,
      'This sign-in request is unknown, was used already or has expired. Go back to the application and sign in again.',
    );
  }
  const { query, pushed } = taken;
  const outcome = checkAuthorizationRequest(query, await liveClient(query.get('client_id')), pushed);
  if (outcome.kind !== 'valid') return refusalOf(outcome);
  const { request } = outcome;
  const secure = secureCookies();
  const cookie = readCookie(event.cookies, 'session', secure);
  const [session, target, hint, options] = await Promise.all([
    request.prompt === 'login' ? undefined : liveSession(cookie),
    signInTarget(request.organizationId, request.clientId),
    outcome.idTokenHint ? idTokenHint(outcome.idTokenHint) : undefined,
    signInOptions(request.organizationId),
  ]);
  const back = (error: string, description: string) =>
    seeOther(
      redirectBack(
        request.redirectUri,
        { error, error_description: description, state: request.state },
        config().publicOrigin,
      ),
    );
  if (outcome.idTokenHint && hint?.organizationId !== request.organizationId) {
    return back('invalid_request', 'id_token_hint is not an ID token this organization issued');
  }
  // A session signs in to its own organization only, only if recent enough for max_age, and only
  // as the person an ID token hint names (OpenID Connect Core 3.1.2.1): an application renewing a
  // sign-in silently never gets someone else who signed in to this browser since.
  if (
    session?.organizationId === request.organizationId &&
    sessionRecentEnough(request, session.authTime, Date.now()) &&
    (hint === undefined || hint.userId === session.userId)
  ) {
    // Renewed only when used: a session another organization's application or an older max_age
    // passes over keeps its idle end.
    const [user] = await Promise.all([
      getUser(session.organizationId, session.userId, true),
      renewSession(cookie as string, session, config().signIn.sessionIdleSeconds),
    ]);
    // A person whose email domain an SSO provider serves signs in there: a session that provider
    // did not make (a password's or passkey's, or another provider's, from before it served the
    // domain) does not stand in for it; nor does one of a provider no longer offered here.
    if (
      signInStillStands(user, session.authTime) &&
      !routedAround(options, user.email, session.provider) &&
      !providerWithdrawn(options, session) &&
      // Else the password first: the session alone would set up the thief's authenticator app.
      sessionMayEnrolAuthenticator(
        session,
        { mfaRequired: target.organization.mfaEnabled, hasAuthenticatorApp: user.totpSecret !== undefined },
        Date.now(),
      )
    ) {
      const { userId, authTime, amr, endsAt, provider, providerBoundAt } = session;
      const person = {
        userId,
        authTime,
        amr,
        sessionEndsAt: endsAt,
        sessionDigest: sessionDigestOf(cookie as string),
        ...(provider ? { provider } : {}),
        ...(providerBoundAt !== undefined ? { providerBoundAt } : {}),
      };
      return continueSignIn(event, request, person, { user, ...target }, true);
    }
  }
  if (request.prompt === 'none') {
    return back(
      'login_required',
      hint ? 'The person the ID token hint names is not signed in' : 'The person is not signed in',
    );
  }
  const binding = browserBinding(event);
  const pending = await saveAuthorizationRequest(
    hint ? { ...request, hintedUserId: hint.userId } : request,
    binding.value,
  );
  return signInPage({
    ...target.names,
    ...offered(options),
    requestId: pending.id,
    ...(outcome.loginHint ? { email: outcome.loginHint } : {}),
    cookies: binding.cookies,
  });
};

const WRONG_CREDENTIALS = 'The email or password is not right.';

/** Why a password sign-in was refused, as its record says (the person is told only "not right"). */
const refusalReason = (email: string, user: UserRecord | undefined, check?: CredentialCheck): string => {
  if (!email) return 'no email';
  if (!user) return 'unknown email';
  if (check?.outcome === 'refused') return check.locked ? 'locked' : 'another attempt under way';
  if (user.status !== 'ACTIVE') return 'user not active';
  return user.passwordHash === undefined ? 'no password set' : 'wrong password';
};

/** How long the latest dummy check took (today's parameters). */
let dummyCheckMillis: number | undefined;
/**
 * Equalises the time of an unknown email with a wrong password (no user enumeration): one
 * derivation with today's parameters, against a hash of no password (unguessablePasswordHash),
 * which costs none to make; so an instance's first unknown email costs what later ones do, and a
 * cold start derives nothing.
 */
const spendPasswordCheck = async (password: string) => {
  const started = performance.now();
  await verifyPassword(password, unguessablePasswordHash());
  dummyCheckMillis = performance.now() - started;
};

/**
 * A hash of older, cheaper parameters is checked faster than an unknown email's dummy: its refusal
 * waits out the difference, so timing tells no one which emails have (older) accounts.
 */
const padToDummyCheck = async (password: string, startedAt: number) => {
  if (dummyCheckMillis === undefined) return spendPasswordCheck(password);
  const wait = dummyCheckMillis - (performance.now() - startedAt);
  if (wait > 0) await sleep(wait);
};

/**
 * The password is known only now: a hash of weaker parameters than today's is replaced by one of
 * today's (docs/behaviour.md, Passwords), unless the password changed meanwhile.
 */
const rehashIfOutdated = async (user: UserRecord, password: string) => {
  const stored = user.passwordHash;
  if (stored === undefined || !needsRehash(stored)) return;
  const owner = { organizationId: user.organizationId, userId: user.id };
  if (await replacePasswordHash(owner, stored, await hashPassword(password))) {
    logger.info('password rehashed', owner);
  }
};

/** `POST /signin`: the sign-in form. */
export const submitSignIn = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const form = formOf(event);
  if (!form)
    return errorPage(400, 'The sign-in form could not be read. Go back to the application and start again.');
  const requestId = form.get('request') ?? '';
  const [pending, throttled] = await Promise.all([
    pendingRequestOf(event, requestId),
    tooManyAttempts(event),
  ]);
  if (throttled) return tooManyAttemptsPage();
  if (!pending) return errorPage(400, EXPIRED);
  const email = (form.get('email') ?? '').trim().slice(0, 320);
  // Cut by characters (code points), as the password rules count them: a password they accept is
  // never cut here.
  const password = [...(form.get('password') ?? '').slice(0, 4 * MAX_PASSWORD_LENGTH)]
    .slice(0, MAX_PASSWORD_LENGTH)
    .join('');
  const [user, target, check, options] = await Promise.all([
    email ? findUserByEmail(pending.organizationId, email) : Promise.resolve(undefined),
    signInTarget(pending.organizationId, pending.clientId),
    email ? reserveCredentialCheck(pending.organizationId, email) : Promise.resolve(undefined),
    signInOptions(pending.organizationId),
  ]);
  const locked = check?.outcome === 'refused' && check.locked;
  // Home-realm discovery: an email of a domain an SSO provider serves signs in there, with no password.
  const provider = providerForEmail(options, email);
  if (provider) {
    if (check?.outcome === 'reserved') await endCredentialCheck(pending.organizationId, email);
    return seeOther(providerLocation(requestId, provider.clientId, email));
  }
  const now = Date.now();
  // A locked email (or one being checked by another request) answers exactly like a wrong
  // password, after the same work (no enumeration).
  const checkable =
    user?.passwordHash !== undefined && user.status === 'ACTIVE' && check?.outcome === 'reserved';
  const checkStarted = performance.now();
  const accepted = checkable
    ? await verifyPassword(password, user.passwordHash as string)
    : await spendPasswordCheck(password).then(() => false);
  if (checkable && !accepted && cheaperToCheck(user.passwordHash as string))
    await padToDummyCheck(password, checkStarted);
  if (!user || !accepted) {
    const counted = email
      ? await recordSignInFailure(
          pending.organizationId,
          email,
          lockoutMillis,
          now,
          check?.outcome === 'reserved' ? check : undefined,
        )
      : { failures: 0, locked: false };
    const { failures } = counted;
    countMetric('SignInsRefused');
    if (failures >= FAILURES_BEFORE_LOCKOUT) countMetric('SignInLockouts');
    logger.info('sign-in refused', {
      organizationId: pending.organizationId,
      clientId: pending.clientId,
      reason: !user
        ? 'unknown-email'
        : locked
          ? 'locked'
          : check?.outcome === 'refused'
            ? 'another-attempt'
            : 'credentials-or-status',
      consecutiveFailures: failures,
    });
    await recordSignInEvent({
      organizationId: pending.organizationId,
      action: counted.locked ? 'signin.locked' : 'signin.failed',
      outcome: 'failure',
      reason: refusalReason(email, user, check),
      // Okta's choice: an unknown email is recorded as typed, so probing shows in the log.
      actor: user ? personActor(user) : attemptedEmailActor(email),
      targets: user ? [personTarget(user)] : [],
      signIn: signInDetails(pending.clientId, { amr: ['pwd'] }),
    });
    return signInPage({
      ...target.names,
      ...offered(options),
      requestId,
      email,
      error: WRONG_CREDENTIALS,
      status: 401,
    });
  }
  await Promise.all([
    // With two steps, only the second one's success ends a run of failures (no unlimited code guessing).
    target.organization.mfaEnabled
      ? endCredentialCheck(pending.organizationId, email)
      : clearSignInFailures(pending.organizationId, email),
    rehashIfOutdated(user, password),
  ]);
  const person = { userId: user.id, authTime: now, amr: ['pwd'] };
  // The page's script says whether this browser could make a passkey (docs/passkeys.md).
  const request = { ...pending, passkeyCapable: form.get('passkeys') === 'available' };
  return continueSignIn(event, request, person, { user, ...target });
};
