import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { personActor, personTarget, recordSignInEvent, signInDetails } from '../auth/sign-in-audit.js';
import { pendingRequestOf, signInTarget, tooManyAttempts } from '../auth/sign-in-requests.js';
import {
  continueSignIn,
  EXPIRED,
  enrolmentLocation,
  type Page,
  providerLocation,
} from '../auth/sign-in-steps.js';

import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { formOf } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import {
  errorPage,
  offered,
  signInPage,
  tooManyAttemptsPage,
  totpChallengePage,
} from '../pages/sign-in-pages.js';
import { takeChallenge } from '../store/passkey-challenges.js';
import { PasskeyEntity, type PasskeyRecord } from '../store/passkey-entities.js';
import { credentialKeyOf, flagPasskey, passkeyOwner, recordPasskeyUse } from '../store/passkeys.js';
import type { AuthorizationRequestRecord } from '../store/sign-in-entities.js';
import { providerForEmail, providerWithdrawn, signInOptions } from '../store/sign-in-providers.js';
import { clearSignInFailures, sessionLive, signInLockedUntil } from '../store/sign-in-state.js';
import { getUser, type UserRecord } from '../store/user-repository.js';
import { assertionOf } from './credential-form.js';
import { ceremonies, requestBinding } from './options.js';
import { amrOfPasskey, signCountVerdict, userHandleRefusal } from './rules.js';

/**
 * `POST /signin/passkey`: a passkey assertion, as the first factor (a discoverable credential
 * names its person) or as the second after a password (it must be that person's). Each refusal is
 * the same page again with a sentence, and a `signin.failed` record. No refusal counts toward a
 * person's lockout: a passkey's signature cannot be guessed, so the lockout (which slows guessing)
 * has nothing to protect here, while anyone who has seen a credential id (it is not secret) could
 * otherwise lock its owner out by sending answers that fail. A person locked by wrong passwords or
 * codes is refused here too.
 */

const UNREADABLE = 'The passkey answer could not be read. Try again, or sign in another way.';
const UNKNOWN = 'This passkey is not registered here, or it was removed. Sign in another way.';
const CHALLENGE_GONE = 'This passkey request expired or was used already. Try again.';
const NOT_ACCEPTED = 'The passkey could not be verified. Try again, or sign in another way.';
const OTHER_PERSON = 'This passkey belongs to another account. Use one of your own passkeys, or your code.';

/**
 * The page the person came from, again, saying why: the sign-in page, the code page, or the
 * enrolment page of a person who has no authenticator app yet.
 */
const pageAgain = async (pending: AuthorizationRequestRecord, error: string, status: number) => {
  if (pending.userId && pending.totpEnrolment)
    return seeOther(enrolmentLocation(pending.id, { passkeyRefused: true }));
  const [target, options] = await Promise.all([
    signInTarget(pending.organizationId, pending.clientId),
    pending.userId ? [] : signInOptions(pending.organizationId),
  ]);
  return pending.userId
    ? totpChallengePage({ ...target.names, requestId: pending.id, error, status, passkeys: true })
    : signInPage({ ...target.names, ...offered(options), requestId: pending.id, error, status });
};

/** A refusal before the passkey names anyone here: recorded as anonymous, counted for nobody. */
const refuseAnonymous = async (pending: AuthorizationRequestRecord, reason: string, message: string) => {
  countMetric('PasskeySignInsRefused');
  logger.info('passkey sign-in refused', { organizationId: pending.organizationId, reason });
  await recordSignInEvent({
    organizationId: pending.organizationId,
    action: 'signin.failed',
    outcome: 'failure',
    reason,
    actor: { type: 'user', id: 'anonymous' },
    targets: [],
    signIn: signInDetails(pending.clientId),
  });
  return pageAgain(pending, message, 401);
};

const NOT_ACTIVE = 'user not active';

/** A refusal of a person's passkey: recorded with them as actor, not counted toward their lockout. */
const refusePerson = async (
  pending: AuthorizationRequestRecord,
  user: UserRecord,
  passkey: PasskeyRecord,
  reason: string,
  message: string,
) => {
  countMetric('PasskeySignInsRefused');
  logger.info('passkey sign-in refused', { organizationId: pending.organizationId, userId: user.id, reason });
  await recordSignInEvent({
    organizationId: pending.organizationId,
    action: 'signin.failed',
    outcome: 'failure',
    reason,
    actor: personActor(user),
    targets: [personTarget(user), { type: 'passkey', id: passkey.credentialKey, name: passkey.name }],
    signIn: signInDetails(pending.clientId, { amr: amrOfPasskey(passkey) }),
  });
  // Only a verified assertion learns that its person may not sign in.
  return reason === NOT_ACTIVE
    ? errorPage(403, 'This account cannot sign in. Contact your administrator.')
    : pageAgain(pending, message, 401);
};

export const submitPasskeySignIn = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const form = formOf(event);
  if (!form) return errorPage(400, 'The form could not be read. Go back to the application and start again.');
  const [pending, throttled] = await Promise.all([
    pendingRequestOf(event, form.get('request')),
    tooManyAttempts(event),
  ]);
  if (throttled) return tooManyAttemptsPage();
  if (!pending) return errorPage(400, EXPIRED);
  const answer = assertionOf(form);
  if (!answer) return refuseAnonymous(pending, 'passkey response not valid', UNREADABLE);
  // The names the next step shows are read beside the checks: a sign-in that passes needs them.
  const { sessionDigest } = pending;
  const [taken, owner, target, providers, sessionStands] = await Promise.all([
    takeChallenge(answer.challenge, requestBinding('sign-in', pending.id, event)),
    passkeyOwner(answer.response.id),
    signInTarget(pending.organizationId, pending.clientId),
    // A first factor needs them, and a second one after a federated sign-in (which ends with its provider).
    pending.userId && pending.provider === undefined ? [] : signInOptions(pending.organizationId),
    sessionDigest === undefined || sessionLive(sessionDigest),
  ]);
  // Another organization's passkey is unknown here, and says nothing about that organization.
  const [passkey, user] =
    owner?.organizationId === pending.organizationId
      ? await Promise.all([
          PasskeyEntity.get({ ...owner, credentialKey: credentialKeyOf(answer.response.id) }),
          getUser(owner.organizationId, owner.userId, true),
        ])
      : [undefined, undefined];
  if (!passkey || !user) return refuseAnonymous(pending, 'unknown passkey', UNKNOWN);
  const refuse = (reason: string, message: string) => refusePerson(pending, user, passkey, reason, message);
  if (!taken) return refuse('passkey challenge expired or used', CHALLENGE_GONE);
  // The signature first: whoever merely knows a credential id learns nothing of its person (their
  // status, whose sign-in this is) from a made-up assertion.
  const checked = await (await ceremonies()).checkAssertion(answer.response, answer.challenge, passkey);
  if (!checked.verified) return refuse(checked.reason, NOT_ACCEPTED);
  const handleRefused = userHandleRefusal(
    answer.response.response.userHandle,
    user.id,
    Boolean(pending.userId),
  );
  if (handleRefused) return refuse(handleRefused, NOT_ACCEPTED);
  if (pending.userId && pending.userId !== user.id) return refuse('passkey of another person', OTHER_PERSON);
  // A password reset since the first factor ends this sign-in, as it does at every later step.
  // So does a sign-out of the session it continued (as at the code: sign-in-step-forms.ts).
  if (
    pending.userId &&
    ((pending.authTime ?? 0) < (user.credentialsChangedAt ?? 0) ||
      !sessionStands ||
      providerWithdrawn(providers, pending))
  )
    return errorPage(400, EXPIRED);
  if (user.status !== 'ACTIVE') return refuse(NOT_ACTIVE, NOT_ACCEPTED);
  // As at the password form: an email whose domain an SSO provider serves signs in there, whenever
  // its passkey was added (the provider's own offboarding must hold). Nothing is counted or
  // recorded yet: the provider's answer is the sign-in.
  const routedTo = pending.userId ? undefined : providerForEmail(providers, user.email);
  if (routedTo) {
    logger.info('passkey sign-in sent to its SSO provider', {
      organizationId: pending.organizationId,
      userId: user.id,
      provider: routedTo.clientId,
    });
    return seeOther(providerLocation(pending.id, routedTo.clientId, user.email));
  }
  const now = Date.now();
  if ((await signInLockedUntil(pending.organizationId, user.email)) > now)
    return refuse('locked', NOT_ACCEPTED);
  const verdict = signCountVerdict(passkey.signCount, checked.value.signCount);
  if (!verdict.accepted) {
    await flagPasskey(passkey, now);
    return refuse(verdict.reason, NOT_ACCEPTED);
  }
  const used = await recordPasskeyUse(
    passkey,
    { signCount: verdict.next, backedUp: checked.value.backedUp },
    now,
  );
  if (!used) return refuse('passkey changed meanwhile', NOT_ACCEPTED);
  await clearSignInFailures(pending.organizationId, user.email);
  const amr = amrOfPasskey(passkey);
  const { userId, authTime, amr: before = [], provider, sessionEndsAt } = pending;
  // A second factor adds to what the first proved, in the session it continued; a first factor is
  // the whole sign-in.
  const person =
    userId && authTime !== undefined
      ? {
          userId,
          authTime,
          amr: [...new Set([...before, ...amr])],
          ...(provider ? { provider } : {}),
          ...(sessionEndsAt !== undefined ? { sessionEndsAt } : {}),
          ...(sessionDigest !== undefined ? { sessionDigest } : {}),
        }
      : { userId: user.id, authTime: now, amr };
  return continueSignIn(event, pending, person, { user, ...target });
};
