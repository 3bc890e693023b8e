import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { changesBetween } from '../audit/changes.js';
import type { AuditEvent } from '../audit/record.js';
import { config } from '../config.js';
import { samePassword } from '../domain/password-normalization.js';
import { passwordProblem } from '../domain/password-policy.js';
import {
  INVITATION_PATH,
  noticeRecipient,
  RESET_PATH,
  sendAccountEmail,
  sendSecurityNotice,
} from '../email/account-emails.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import {
  choosePasswordPage,
  forgotPasswordPage,
  passwordSetPage,
  resetLinkSentPage,
} from '../pages/account-pages.js';
import { browserBinding, csrfHolds, csrfToken, formOf } from '../pages/forms.js';
import { errorPage, tooManyAttemptsPage } from '../pages/sign-in-pages.js';
import { issueResetLink, livePasswordLink, setPasswordWithLink } from '../store/credentials.js';
import { getOrganization } from '../store/organization-repository.js';
import type { PasswordLinkPurpose } from '../store/password-link-entity.js';
import { clearSignInFailures } from '../store/sign-in-state.js';
import { findUserByEmail } from '../store/user-repository.js';
import { hashPassword } from './passwords.js';
import { personActor, personTarget, signInDetails } from './sign-in-audit.js';
import { pendingRequestOf, tooManyAttempts } from './sign-in-requests.js';
import { EXPIRED, type Page } from './sign-in-steps.js';

/**
 * Emailed links that set a password: the invitation of the join email (first password) and the
 * reset link of "Forgot your password?". A link works once, until it expires or a newer link of
 * the same kind replaces it; opening it changes nothing (mail scanners open links), only the
 * form's post does.
 */

const LINK_GONE: Record<PasswordLinkPurpose, string> = {
  invitation:
    'This invitation link has expired, was already used, or was replaced by a newer one. Ask your administrator to send the invitation again.',
  reset:
    'This link has expired, was already used, or was replaced by a newer one. Ask for a new one from the sign-in page.',
};

const ACTIONS: Record<PasswordLinkPurpose, string> = { invitation: INVITATION_PATH, reset: RESET_PATH };

const organizationName = async (organizationId: string) =>
  (await getOrganization(organizationId))?.name ?? organizationId;

/** `GET /signin/invitation` and `GET /signin/reset`: the form for the new password. */
export const showPasswordLink =
  (purpose: PasswordLinkPurpose) =>
  async (event: APIGatewayProxyEventV2): Promise<Page> => {
    const token = new URLSearchParams(event.rawQueryString).get('token') ?? '';
    const live = await livePasswordLink(token);
    if (live?.link.purpose !== purpose) return errorPage(410, LINK_GONE[purpose]);
    const binding = browserBinding(event);
    return choosePasswordPage({
      purpose,
      action: ACTIONS[purpose],
      organizationName: await organizationName(live.user.organizationId),
      email: live.user.email,
      token,
      csrf: csrfToken(binding.value),
      cookies: binding.cookies,
    });
  };

/** `POST /signin/invitation` and `POST /signin/reset`: sets the password and uses the link up. */
export const submitPasswordLink =
  (purpose: PasswordLinkPurpose) =>
  async (event: APIGatewayProxyEventV2): Promise<Page> => {
    const form = formOf(event);
    // Not a form, or over 64 KiB: nothing to verify, the request itself is wrong.
    if (!form) return errorPage(400, 'This form could not be read. Open the link from your email again.');
    if (!csrfHolds(event, form)) {
      return errorPage(403, 'This form could not be verified. Open the link from your email again.');
    }
    const token = form.get('token') ?? '';
    const live = await livePasswordLink(token);
    if (live?.link.purpose !== purpose) return errorPage(410, LINK_GONE[purpose]);
    const { user, link } = live;
    const password = form.get('password') ?? '';
    const problem = !samePassword(password, form.get('confirm') ?? '')
      ? 'The two passwords differ. Type the same password twice.'
      : passwordProblem(password, user.email);
    const name = await organizationName(user.organizationId);
    if (problem) {
      return choosePasswordPage({
        purpose,
        action: ACTIONS[purpose],
        organizationName: name,
        email: user.email,
        token,
        csrf: form.get('csrf') ?? '',
        error: problem,
        status: 400,
      });
    }
    const passwordHash = await hashPassword(password);
    const now = Date.now();
    const audit: AuditEvent = {
      organizationId: user.organizationId,
      action: purpose === 'invitation' ? 'invitation.accepted' : 'password.reset',
      actor: personActor(user),
      targets: [personTarget(user)],
      // The name only: a password's hash is a secret, which a record shows as "changed".
      changes: changesBetween({ passwordHash: user.passwordHash }, { passwordHash }),
    };
    if (!(await setPasswordWithLink(token, link, passwordHash, now, audit))) {
      return errorPage(410, LINK_GONE[purpose]);
    }
    await Promise.all([
      // The mailbox proves no second factor: a person with one keeps the count their codes earned
      // (only a complete sign-in clears it), or each reset would buy fresh guesses at the code.
      !user.totpSecret && clearSignInFailures(user.organizationId, user.email),
      // A first password is no change to report; a reset is, and so is a join link (resent to a
      // person who has one) that replaces a password.
      (purpose === 'reset' || user.passwordHash !== undefined) &&
        sendSecurityNotice(noticeRecipient(user), 'password', name),
    ]);
    countMetric('PasswordsSet');
    logger.info(purpose === 'invitation' ? 'invitation accepted' : 'password reset', {
      organizationId: user.organizationId,
      userId: user.id,
    });
    return passwordSetPage(name);
  };

/** `GET /signin/forgot?request=...`: from the sign-in page, which decides the organization. */
export const showForgotPassword = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const requestId = new URLSearchParams(event.rawQueryString).get('request');
  const pending = await pendingRequestOf(event, requestId);
  if (!pending) return errorPage(400, EXPIRED);
  return forgotPasswordPage({
    organizationName: await organizationName(pending.organizationId),
    requestId: pending.id,
  });
};

/** The forgot-password answer takes at least this long whether or not the email exists. */
const FORGOT_ANSWER_MILLIS = 400;

/**
 * `POST /signin/forgot`: emails a reset link to an ACTIVE user of the request's organization.
 * The answer is the same page, after the same minimum time, whether or not the email exists.
 */
export const submitForgotPassword = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const started = Date.now();
  const form = formOf(event);
  if (!form) return errorPage(400, 'The form could not be read. Go back to the sign-in page and try again.');
  const [pending, throttled] = await Promise.all([
    pendingRequestOf(event, form.get('request')),
    tooManyAttempts(event),
  ]);
  if (throttled) return tooManyAttemptsPage();
  if (!pending) return errorPage(400, EXPIRED);
  const email = (form.get('email') ?? '').trim().slice(0, 320);
  const [user, name] = await Promise.all([
    email ? findUserByEmail(pending.organizationId, email) : Promise.resolve(undefined),
    organizationName(pending.organizationId),
  ]);
  if (user?.status === 'ACTIVE') {
    const outboxEmail = {
      organizationId: user.organizationId,
      userId: user.id,
      to: user.email,
      name: user.name,
    };
    // Recorded only when a link is sent: an email that matches nobody writes nothing per probe.
    const issued = await issueResetLink(user, outboxEmail, config().signIn.resetSeconds, Date.now(), {
      organizationId: user.organizationId,
      action: 'password.reset.requested',
      actor: personActor(user),
      targets: [personTarget(user)],
      signIn: signInDetails(pending.clientId),
    });
    if (issued) {
      await sendAccountEmail(
        'reset',
        {
          email: { ...outboxEmail, type: 'PASSWORD_RESET_EMAIL' },
          outbox: issued.outbox,
          organizationName: name,
        },
        issued.token,
      );
    }
    countMetric('PasswordResetsRequested');
    logger.info('password reset requested', { organizationId: user.organizationId, userId: user.id });
  }
  const wait = FORGOT_ANSWER_MILLIS - (Date.now() - started);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  return resetLinkSentPage(name);
};
