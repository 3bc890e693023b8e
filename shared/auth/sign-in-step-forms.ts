import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { changesBetween } from '../audit/changes.js';
import { auditScope, withAuditScope } from '../audit/scope.js';
import { signInRecentEnoughToAddCredential } from '../domain/credential-recency.js';
import { NotFound } from '../domain/errors.js';
import { newRecoveryCodes, normalisedRecoveryCode, recoveryCodeDigest } from '../domain/recovery-codes.js';
import { FAILURES_BEFORE_LOCKOUT, lockoutMillis } from '../domain/sign-in-lockout.js';
import { matchingStep } from '../domain/totp.js';
import { sendSecurityNotice } from '../email/account-emails.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { formOf } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import {
  errorPage,
  recoveryCodesPage,
  tooManyAttemptsPage,
  totpChallengePage,
} from '../pages/sign-in-pages.js';
import { recordConsent } from '../store/consent-repository.js';
import { acceptTotpStep, completeTotpEnrolment, useRecoveryCode } from '../store/credentials.js';
import { digestOf } from '../store/opaque-values.js';
import type { AuthorizationRequestRecord } from '../store/sign-in-entities.js';
import { providerWithdrawn, signInOptions } from '../store/sign-in-providers.js';
import {
  clearSignInFailures,
  recordSignInFailure,
  recordSignInProgress,
  reserveCredentialCheck,
  sessionLive,
} from '../store/sign-in-state.js';
import { getUser } from '../store/user-repository.js';
import { personActor, personTarget, recordSignInEvent, signInDetails } from './sign-in-audit.js';
import { pendingRequestOf, signInTarget, tooManyAttempts } from './sign-in-requests.js';
import {
  awaitsSecondFactor,
  continueSignIn,
  declineSignIn,
  EXPIRED,
  enrolmentLocation,
  type Page,
  type Person,
  type StepContext,
  WRONG_CODE,
} from './sign-in-steps.js';
import { isSealed, openTotpSecret, sealTotpSecret } from './totp-sealing.js';

/**
 * The forms of the steps after the password: the TOTP code (enrolment or challenge), the
 * recovery codes' Continue, and consent. Each names its pending request, which must belong to
 * this browser and already know the person.
 */

export interface Step {
  event: APIGatewayProxyEventV2;
  pending: AuthorizationRequestRecord;
  person: Person;
  context: StepContext;
  form: URLSearchParams;
}

export const loadStep = async (event: APIGatewayProxyEventV2): Promise<Step | Page> => {
  const form = formOf(event);
  if (!form) return errorPage(400, 'The form could not be read. Go back to the application and start again.');
  const pending = await pendingRequestOf(event, form.get('request'));
  const { userId, authTime, amr, provider, providerBoundAt, sessionEndsAt, sessionDigest } = pending ?? {};
  if (!pending || !userId || authTime === undefined || !amr) return errorPage(400, EXPIRED);
  const [user, target, sessionStands, options] = await Promise.all([
    getUser(pending.organizationId, userId, true),
    signInTarget(pending.organizationId, pending.clientId),
    sessionDigest === undefined || sessionLive(sessionDigest),
    // Read only for a federated sign-in, which ends with its provider.
    provider === undefined ? [] : signInOptions(pending.organizationId),
  ]);
  // A person who came with a session and signed out of it since (RP-Initiated Logout ends the
  // session): whoever uses the browser next must not finish the steps it left open.
  if (!sessionStands) return errorPage(400, EXPIRED);
  if (user?.status !== 'ACTIVE')
    return errorPage(403, 'This account cannot sign in. Contact your administrator.');
  // A password reset (or a deactivation) since this sign-in began ends it, as it ends sessions:
  // whoever is parked at a later step with the old password must not finish it.
  if (authTime < (user.credentialsChangedAt ?? 0)) return errorPage(400, EXPIRED);
  // So does the removal of the SSO provider that made it (unbound, deleted).
  if (providerWithdrawn(options, pending)) return errorPage(400, EXPIRED);
  const person = {
    userId,
    authTime,
    amr,
    ...(provider ? { provider } : {}),
    ...(providerBoundAt !== undefined ? { providerBoundAt } : {}),
    ...(sessionEndsAt !== undefined ? { sessionEndsAt } : {}),
    ...(sessionDigest !== undefined ? { sessionDigest } : {}),
  };
  return { event, pending, person, context: { user, ...target }, form };
};

export const isPage = (step: Step | Page): step is Page => 'statusCode' in step;

/** A refused code: `signin.failed`, or `signin.locked` for the failure that locked the email. */
const recordCodeRefusal = (step: Step, locked: boolean, reason: string) =>
  recordSignInEvent({
    organizationId: step.pending.organizationId,
    action: locked ? 'signin.locked' : 'signin.failed',
    outcome: 'failure',
    reason,
    actor: personActor(step.context.user),
    targets: [personTarget(step.context.user)],
    signIn: signInDetails(step.pending.clientId, step.person),
  });

/**
 * Confirms enrolment with the first code: stores the secret (sealed for the person, as the
 * enrolment holds it), answers the recovery codes once.
 */
const ENROL_AFTER_SIGN_IN =
  'To set up two-step verification, sign in again: your sign-in is more than 15 minutes old. Go back to the application and sign in again.';

const confirmEnrolment = async (step: Step, enrolment: string, code: string): Promise<Page> => {
  const { pending, person, context } = step;
  const owner = { organizationId: pending.organizationId, userId: person.userId };
  const now = Date.now();
  // Begun from a kept session: its sign-in must still be recent when the app is set up, as when
  // the enrolment began (browser-sign-in.ts), not only then.
  if (person.sessionDigest !== undefined && !signInRecentEnoughToAddCredential(person.authTime, now))
    return errorPage(400, ENROL_AFTER_SIGN_IN);
  const secret = await openTotpSecret(owner, enrolment);
  const timeStep = secret === undefined ? undefined : matchingStep(secret, code, now);
  if (timeStep === undefined) {
    const { failures, locked } = await recordSignInFailure(
      pending.organizationId,
      context.user.email,
      lockoutMillis,
      now,
    );
    countMetric('MfaChallengesRefused');
    logger.info('TOTP enrolment code refused', { ...owner, consecutiveFailures: failures });
    await recordCodeRefusal(step, locked, 'wrong code at enrolment');
    return seeOther(enrolmentLocation(pending.id, { retry: true }));
  }
  // An enrolment begun before sealing holds the secret itself: stored sealed all the same.
  const sealed = isSealed(enrolment) ? enrolment : await sealTotpSecret(owner, secret as string);
  const codes = newRecoveryCodes();
  const recoveryCodeDigests = codes.map((code) => recoveryCodeDigest(context.user.id, code));
  const amr = [...new Set([...person.amr, 'otp', 'mfa'])];
  const enrolled = await completeTotpEnrolment(
    owner,
    { secret: sealed, step: timeStep, recoveryCodeDigests },
    now,
    {
      organizationId: pending.organizationId,
      action: 'mfa.enrolled',
      actor: personActor(context.user),
      targets: [personTarget(context.user)],
      // Names only: both fields hold secrets, which a record shows as "changed".
      changes: changesBetween(undefined, { totpSecret: sealed, recoveryCodeDigests }),
      signIn: signInDetails(pending.clientId, { ...person, amr }),
    },
  );
  if (!enrolled)
    return errorPage(
      409,
      'Two-step verification was set up meanwhile. Go back to the application and sign in again; if you did not see your recovery codes, make new ones on your account page.',
    );
  if (!(await recordSignInProgress(pending.id, { amr, totpEnrolment: undefined }, pending)))
    return errorPage(400, EXPIRED);
  countMetric('MfaEnrolments');
  logger.info('TOTP enrolled', owner);
  const { user } = context;
  await sendSecurityNotice(
    { organizationId: owner.organizationId, userId: user.id, to: user.email, name: user.name },
    'mfa-enrolled',
  );
  return recoveryCodesPage({ ...context.names, requestId: pending.id, codes });
};

/** Checks a code (or a recovery code) against the enrolled secret, each accepted once. */
const checkChallenge = async (step: Step, code: string): Promise<Page> => {
  const { pending, person, context } = step;
  const { user } = context;
  const owner = { organizationId: pending.organizationId, userId: user.id };
  const now = Date.now();
  const stored = user.totpSecret;
  // Opened before the reservation: a key that cannot be read leaves no check reserved.
  const secret = stored === undefined ? undefined : await openTotpSecret(owner, stored);
  // Reserved before the check, so parallel guesses are not all checked (reserveCredentialCheck).
  const check = await reserveCredentialCheck(pending.organizationId, user.email, now);
  const locked = check.outcome === 'refused' && check.locked;
  let method: 'otp' | 'recovery' | undefined;
  if (check.outcome === 'reserved' && stored) {
    const timeStep = secret === undefined ? undefined : matchingStep(secret, code, now);
    const recovery = timeStep === undefined ? normalisedRecoveryCode(code) : undefined;
    // A secret stored before sealing is sealed as its code is accepted.
    const resealed =
      timeStep !== undefined && secret !== undefined && !isSealed(stored)
        ? await sealTotpSecret(owner, secret)
        : undefined;
    if (timeStep !== undefined && (await acceptTotpStep(owner, stored, timeStep, resealed))) method = 'otp';
    else if (
      recovery &&
      (await useRecoveryCode(owner, [recoveryCodeDigest(user.id, recovery), digestOf(recovery)]))
    )
      method = 'recovery';
  }
  if (!method) {
    const counted = await recordSignInFailure(
      pending.organizationId,
      user.email,
      lockoutMillis,
      now,
      check.outcome === 'reserved' ? check : undefined,
    );
    countMetric('MfaChallengesRefused');
    if (counted.failures >= FAILURES_BEFORE_LOCKOUT) countMetric('SignInLockouts');
    logger.info('TOTP code refused', { ...owner, consecutiveFailures: counted.failures, locked });
    const reason =
      check.outcome === 'reserved' ? 'wrong code' : locked ? 'locked' : 'another attempt under way';
    await recordCodeRefusal(step, counted.locked, reason);
    return totpChallengePage({
      ...context.names,
      requestId: pending.id,
      error: WRONG_CODE,
      status: 401,
      passkeys: (user.passkeyCount ?? 0) > 0,
    });
  }
  await clearSignInFailures(pending.organizationId, user.email);
  if (method === 'recovery') {
    countMetric('RecoveryCodesUsed');
    logger.info('recovery code used', owner);
  }
  const amr = [...new Set([...person.amr, ...(method === 'otp' ? ['otp'] : []), 'mfa'])];
  return continueSignIn(step.event, pending, { ...person, amr }, context);
};

/** `POST /signin/totp`: the code of an enrolment or a challenge. */
export const submitTotp = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const [step, throttled] = await Promise.all([loadStep(event), tooManyAttempts(event)]);
  if (throttled) return tooManyAttemptsPage();
  if (isPage(step)) return step;
  const code = (step.form.get('code') ?? '').trim().slice(0, 32);
  return step.pending.totpEnrolment
    ? confirmEnrolment(step, step.pending.totpEnrolment, code)
    : checkChallenge(step, code);
};

/** `POST /signin/continue`: after the recovery codes were shown. */
export const submitContinue = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const step = await loadStep(event);
  if (isPage(step)) return step;
  return continueSignIn(event, step.pending, step.person, step.context);
};

/** `POST /signin/consent`: Accept records the same Consent as `POST /idp/consent/{agreementId}`. */
export const submitConsent = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const step = await loadStep(event);
  if (isPage(step)) return step;
  const { pending, person, form } = step;
  if (form.get('decision') !== 'accept') return declineSignIn(pending);
  // Consent is the step after the second factor: one proved by a password alone consents to nothing.
  if (awaitsSecondFactor(person, step.context)) return errorPage(400, EXPIRED);
  const agreementId = form.get('agreement') ?? '';
  if (!/^[\w-]{1,64}$/.test(agreementId))
    return errorPage(400, 'The agreement could not be read. Sign in again.');
  try {
    // The person accepts: the record of the consent is theirs (the scope keeps address and agent).
    const scope = auditScope();
    await withAuditScope({ ...scope, actor: { ...scope.actor, ...personActor(step.context.user) } }, () =>
      recordConsent(pending.organizationId, person.userId, agreementId),
    );
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    return errorPage(400, 'The agreement no longer exists. Sign in again.');
  }
  countMetric('ConsentsGiven');
  logger.info('agreement accepted', {
    organizationId: pending.organizationId,
    userId: person.userId,
    agreementId,
  });
  // Accepting an older agreement than the latest leads to the consent page again.
  return continueSignIn(event, pending, person, step.context);
};
