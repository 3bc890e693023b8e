import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { auditScope, withAuditScope } from '../audit/scope.js';
import { personActor } from '../auth/sign-in-audit.js';
import { isPage, loadStep } from '../auth/sign-in-step-forms.js';
import { continueSignIn, EXPIRED, type Page } from '../auth/sign-in-steps.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { sendSecurityNotice } from '../email/account-emails.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import { setCookie } from '../pages/cookies.js';
import { secureCookies } from '../pages/forms.js';
import { passkeyPromptPage } from '../pages/passkey-pages.js';
import { errorPage } from '../pages/sign-in-pages.js';
import { takeChallenge } from '../store/passkey-challenges.js';
import { addPasskey } from '../store/passkeys.js';
import { providerForEmail, signInOptions } from '../store/sign-in-providers.js';
import type { UserRecord } from '../store/user-repository.js';
import { registrationOf } from './credential-form.js';
import { ceremonies, offeredPerson, requestBinding } from './options.js';
import { accountAddRefusal, PASSKEY_PROMPT_PAUSE_SECONDS, ssoRoutedRefusal } from './rules.js';

/**
 * Adding a passkey: the ceremony's answer checked against its challenge (taken once, under the
 * binding it was handed out for) and stored with its record, the person as its actor. Used by the
 * prompt after a password sign-in and by the account page.
 */
export const enrolPasskey = async (
  form: URLSearchParams,
  binding: string,
  user: Pick<UserRecord, 'id' | 'email' | 'name' | 'organizationId'>,
  now = Date.now(),
): Promise<{ added: true } | { added: false; message: string }> => {
  const answer = registrationOf(form);
  if (!answer) return { added: false, message: 'The passkey answer could not be read. Try again.' };
  const [taken, providers] = await Promise.all([
    takeChallenge(answer.challenge, binding, now),
    signInOptions(user.organizationId),
  ]);
  if (!taken)
    return { added: false, message: 'This passkey request expired or was used already. Try again.' };
  // Checked here too, for every way a passkey is added: a provider may have begun serving the
  // domain since the page was shown.
  const routedTo = providerForEmail(providers, user.email);
  if (routedTo) return { added: false, message: ssoRoutedRefusal(routedTo.displayName) };
  const checked = await (await ceremonies()).checkRegistration(answer.response, answer.challenge);
  const owner = { organizationId: user.organizationId, userId: user.id };
  if (!checked.verified) {
    logger.info('passkey registration refused', { ...owner, reason: checked.reason });
    return { added: false, message: 'The passkey could not be verified. Try again.' };
  }
  const name = `Passkey added ${new Date(now).toISOString().slice(0, 10)}`;
  try {
    const scope = auditScope();
    await withAuditScope({ ...scope, actor: { ...scope.actor, ...personActor(user) } }, () =>
      addPasskey({ ...checked.value, ...owner, name }, now),
    );
  } catch (error) {
    if (error instanceof Conflict) return { added: false, message: error.message };
    if (error instanceof NotFound) return { added: false, message: 'This account no longer exists.' };
    throw error;
  }
  countMetric('PasskeysRegistered');
  logger.info('passkey registered', { ...owner, backupEligible: checked.value.backupEligible });
  await sendSecurityNotice({ ...owner, to: user.email, name: user.name }, 'passkey-added');
  return { added: true };
};

/** The prompt's step: its pending request, past the password and offered a passkey. */
const promptStep = async (event: APIGatewayProxyEventV2) => {
  const step = await loadStep(event);
  if (isPage(step)) return step;
  return offeredPerson(step.pending) ? step : errorPage(400, EXPIRED);
};

/** `POST /signin/passkeys`: the passkey made on the prompt; then the sign-in goes on. */
export const submitPromptPasskey = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const step = await promptStep(event);
  if (isPage(step)) return step;
  const { pending, context, form } = step;
  // As on the account page: an offer left open past a recent sign-in plants no credential, nor
  // one reached without the second factor the organization asks for now (the password posted
  // again on the same sign-in, or MFA turned on while the offer was open).
  const stale = accountAddRefusal(step.person, context.organization.mfaEnabled, Date.now());
  if (stale) return passkeyPromptPage({ ...context.names, requestId: pending.id, error: stale, status: 403 });
  const outcome = await enrolPasskey(form, requestBinding('enrol', pending.id, event), context.user);
  if (!outcome.added)
    return passkeyPromptPage({
      ...context.names,
      requestId: pending.id,
      error: outcome.message,
      status: 400,
    });
  return continueSignIn(event, pending, step.person, context);
};

/** `POST /signin/passkeys/skip`: "Not now"; this browser is not asked again for a while. */
export const skipPasskeyPrompt = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const step = await promptStep(event);
  if (isPage(step)) return step;
  const next = await continueSignIn(event, step.pending, step.person, step.context);
  const pause = setCookie('passkey-prompt', 'declined', secureCookies(), PASSKEY_PROMPT_PAUSE_SECONDS);
  return { ...next, cookies: [...(next.cookies ?? []), pause] };
};
