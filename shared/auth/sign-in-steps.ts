import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../config.js';
import { type AuthorizationRequest, redirectBack } from '../domain/authorization.js';
import { newTotpSecret } from '../domain/totp.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { readCookie, setCookie } from '../pages/cookies.js';
import { browserBinding, secureCookies } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import { passkeyPromptPage } from '../pages/passkey-pages.js';
import { consentPage, errorPage, type SignInNames, totpChallengePage } from '../pages/sign-in-pages.js';
import { shouldOfferPasskey } from '../passkeys/rules.js';
import { agreementAwaitingConsent } from '../store/consent-repository.js';
import type { Organization } from '../store/organization-repository.js';
import type { AuthorizationRequestRecord } from '../store/sign-in-entities.js';
import {
  completeAuthorizationRequest,
  createSession,
  endSession,
  handOverFamilies,
  issueAuthorizationCode,
  recordSignInProgress,
  revokeSessionFamilies,
  saveAuthorizationRequest,
  sessionDigestOf,
  sessionIsLive,
} from '../store/sign-in-state.js';
import type { UserRecord } from '../store/user-repository.js';
import { personActor, personTarget, signInDetails } from './sign-in-audit.js';
import { sealTotpSecret } from './totp-sealing.js';

/**
 * What follows once a person proved who they are (password, or a live session): TOTP enrolment
 * or challenge when the organization uses MFA, consent to the latest agreement, then a session
 * and the redirect back with a code. Each step is a page whose form names the pending request;
 * the request remembers how far the person got.
 */

export type Page = APIGatewayProxyStructuredResultV2;

export const WRONG_CODE =
  'The code is not right. Check that the time on your device is correct, and try again.';

export const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';

/** Who signed in and how (RFC 8176 `amr` values: `pwd`, `otp`, `mfa`; and `fed`). */
export interface Person {
  userId: string;
  /** Epoch ms of the authentication (ID tokens carry its second as `auth_time`). */
  authTime: number;
  amr: string[];
  /** The SSO provider (its client id) of a federated sign-in. */
  provider?: string;
  /** When that provider was bound to the organization: its sign-ins end once it is not (sign-in-providers.ts). */
  providerBoundAt?: number;
  /**
   * Epoch ms: when the person came with a live session, its absolute end. A session made from it
   * (after a consent or a second factor) keeps that end, so steps never stretch its lifetime.
   */
  sessionEndsAt?: number;
  /** The digest of that session's key: a step finished after it ended (a sign-out) starts nothing. */
  sessionDigest?: string;
}

/** What a step needs to know besides the request: the user, its organization, the names to show. */
export interface StepContext {
  user: UserRecord;
  organization: Pick<Organization, 'name' | 'mfaEnabled'>;
  names: SignInNames;
}

type Request = AuthorizationRequest &
  Partial<
    Pick<AuthorizationRequestRecord, 'id' | 'userId' | 'totpEnrolment' | 'passkeyCapable' | 'passkeyOffered'>
  >;

const TAKEN_OVER =
  'This sign-in is already under way for someone else. Go back to the application and sign in again.';

const backToApplication = (request: AuthorizationRequest, parameters: Record<string, string | undefined>) =>
  seeOther(redirectBack(request.redirectUri, { ...parameters, state: request.state }, config().publicOrigin));

/**
 * Sends the browser back to the application with a code for this person, from the browser
 * session `sessionCookie` (what the code starts ends when the person signs out of it).
 */
const redirectWithCode = async (
  request: AuthorizationRequest,
  person: Person,
  cookies: string[],
  sessionCookie: string | undefined,
) => {
  const code = await issueAuthorizationCode(
    {
      clientId: request.clientId,
      organizationId: request.organizationId,
      userId: person.userId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      ...(request.nonce ? { nonce: request.nonce } : {}),
      authTime: person.authTime,
      amr: person.amr,
      ...(person.provider ? { provider: person.provider } : {}),
      ...(person.providerBoundAt !== undefined ? { providerBoundAt: person.providerBoundAt } : {}),
      ...(sessionCookie ? { sessionDigest: sessionDigestOf(sessionCookie) } : {}),
    },
    config().signIn.codeSeconds,
  );
  return seeOther(
    redirectBack(request.redirectUri, { code, state: request.state }, config().publicOrigin),
    cookies,
  );
};

/**
 * Ends the request with a code. A person who authenticated in this request gets a new session
 * (replacing the browser's earlier one), which records their sign-in; one who came with a live
 * session keeps it, and records nothing (its sign-in was recorded).
 */
const finishSignIn = async (
  event: APIGatewayProxyEventV2,
  request: Request,
  person: Person,
  user: Pick<UserRecord, 'id' | 'email'>,
  fromSession: boolean,
): Promise<Page> => {
  if (request.id && !(await completeAuthorizationRequest(request.id))) return errorPage(400, EXPIRED);
  const secure = secureCookies();
  if (fromSession) return redirectWithCode(request, person, [], readCookie(event.cookies, 'session', secure));
  const { signIn } = config();
  const { provider, providerBoundAt, sessionEndsAt, ...subject } = person;
  const [{ cookieValue }, replaced] = await Promise.all([
    createSession(
      {
        organizationId: request.organizationId,
        ...subject,
        ...(provider ? { provider } : {}),
        ...(providerBoundAt !== undefined ? { providerBoundAt } : {}),
      },
      {
        idleSeconds: signIn.sessionIdleSeconds,
        absoluteSeconds: signIn.sessionAbsoluteSeconds,
        endsBy: sessionEndsAt,
      },
      Date.now(),
      {
        organizationId: request.organizationId,
        action: person.amr.includes('fed') ? 'signin.federated' : 'signin.succeeded',
        actor: personActor(user),
        targets: [personTarget(user)],
        signIn: signInDetails(request.clientId, person),
      },
    ),
    endSession(readCookie(event.cookies, 'session', secure)),
  ]);
  // What the replaced session began ends with the new one when the same person signed in again;
  // another person's sign-in ends the first person's session, and with it what it began.
  if (replaced && sessionIsLive(replaced)) {
    if (replaced.userId === person.userId && replaced.organizationId === request.organizationId)
      await handOverFamilies(replaced, cookieValue);
    else await revokeSessionFamilies(replaced);
  }
  countMetric('SignIns');
  logger.info('signed in', {
    organizationId: request.organizationId,
    clientId: request.clientId,
    userId: person.userId,
    amr: person.amr,
  });
  return redirectWithCode(request, person, [setCookie('session', cookieValue, secure)], cookieValue);
};

/** Where the TOTP enrolment page of a pending request is (the accounts function renders it). */
export const enrolmentLocation = (
  requestId: string,
  options: { retry?: boolean; passkeyRefused?: boolean } = {},
): string =>
  `/signin/enrol?${new URLSearchParams({
    request: requestId,
    ...(options.retry ? { retry: '1' } : {}),
    ...(options.passkeyRefused ? { passkey: 'refused' } : {}),
  })}`;

/**
 * Home-realm discovery: where a pending request goes for an email whose domain an SSO provider
 * serves (the federation function's `/signin/sso`), the email as its login hint.
 */
export const providerLocation = (
  requestId: string,
  providerClientId: string,
  email: string,
  /** Asks the upstream to sign the person in again (federated-sign-in.ts). */
  options: { fresh?: boolean } = {},
): string =>
  `/signin/sso?${new URLSearchParams({
    request: requestId,
    provider: providerClientId,
    login_hint: email,
    ...(options.fresh ? { fresh: '1' } : {}),
  })}`;

/** The organization asks for a second factor the person has not given in this sign-in yet. */
export const awaitsSecondFactor = (person: Person, context: StepContext): boolean =>
  context.organization.mfaEnabled && !person.amr.includes('mfa');

/**
 * The next step for a person who proved who they are, or the redirect back when none is left.
 * `fromSession`: they came with a live session rather than authenticating in this request.
 */
export const continueSignIn = async (
  event: APIGatewayProxyEventV2,
  request: Request,
  person: Person,
  context: StepContext,
  fromSession = false,
): Promise<Page> => {
  // One person per sign-in: what a request holds for the person it identified first (the steps
  // they completed, a passkey offer) never passes to someone identified on it later.
  if (request.userId !== undefined && request.userId !== person.userId) return errorPage(400, TAKEN_OVER);
  // The application asked for the person its ID token hint names; someone else signed in instead
  // (OpenID Connect Core 3.1.2.1: "otherwise, it SHOULD return an error, such as login_required").
  if (request.hintedUserId !== undefined && request.hintedUserId !== person.userId) {
    return backToApplication(request, {
      error: 'login_required',
      error_description: 'Someone other than the person the ID token hint names signed in',
    });
  }
  const needsMfa = awaitsSecondFactor(person, context);
  const agreement = needsMfa
    ? undefined
    : await agreementAwaitingConsent(request.organizationId, person.userId);
  const offerPasskey =
    !needsMfa &&
    !agreement &&
    !fromSession &&
    shouldOfferPasskey({
      amr: person.amr,
      browserCapable: request.passkeyCapable === true,
      passkeyCount: context.user.passkeyCount ?? 0,
      offeredAlready: request.passkeyOffered === true,
      declinedInThisBrowser: readCookie(event.cookies, 'passkey-prompt', secureCookies()) !== undefined,
    });
  if (!needsMfa && !agreement && !offerPasskey)
    return finishSignIn(event, request, person, context.user, fromSession);
  if (request.prompt === 'none') {
    return backToApplication(request, {
      error: needsMfa ? 'interaction_required' : 'consent_required',
      error_description: needsMfa
        ? 'The person must complete two-step verification'
        : 'The person must accept the agreement',
    });
  }
  // Sealed for the person, as the secret it becomes once confirmed (totp-sealing.ts).
  const enrolment =
    needsMfa && !context.user.totpSecret
      ? (request.totpEnrolment ??
        (await sealTotpSecret(
          { organizationId: request.organizationId, userId: person.userId },
          newTotpSecret(),
        )))
      : undefined;
  const progress = {
    userId: person.userId,
    authTime: person.authTime,
    amr: person.amr,
    provider: person.provider,
    providerBoundAt: person.providerBoundAt,
    sessionEndsAt: person.sessionEndsAt,
    sessionDigest: person.sessionDigest,
    totpEnrolment: enrolment,
    ...(request.passkeyCapable ? { passkeyCapable: true } : {}),
    ...(offerPasskey ? { passkeyOffered: true } : {}),
  };
  let requestId = request.id;
  let cookies: string[] = [];
  if (requestId) {
    if (!(await recordSignInProgress(requestId, progress, request))) return errorPage(400, EXPIRED);
  } else {
    const binding = browserBinding(event);
    requestId = (await saveAuthorizationRequest(request, binding.value, progress)).id;
    cookies = binding.cookies;
  }
  const page = needsMfa
    ? enrolment
      ? seeOther(enrolmentLocation(requestId))
      : totpChallengePage({ ...context.names, requestId, passkeys: (context.user.passkeyCount ?? 0) > 0 })
    : agreement
      ? consentPage({ ...context.names, requestId, agreementId: agreement.id, agreementUrl: agreement.url })
      : passkeyPromptPage({ ...context.names, requestId });
  return cookies.length ? { ...page, cookies } : page;
};

/** A person declined the agreement: the application hears `access_denied` (RFC 6749 4.1.2.1). */
export const declineSignIn = async (request: Request): Promise<Page> => {
  if (request.id && !(await completeAuthorizationRequest(request.id))) return errorPage(400, EXPIRED);
  return backToApplication(request, {
    error: 'access_denied',
    error_description: 'The person declined the agreement',
  });
};
