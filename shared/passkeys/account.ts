import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { changesBetween } from '../audit/changes.js';
import { auditScope, withAuditScope } from '../audit/scope.js';
import { personActor, personTarget } from '../auth/sign-in-audit.js';
import type { Page } from '../auth/sign-in-steps.js';
import { NotFound } from '../domain/errors.js';
import { newRecoveryCodes, recoveryCodeDigest } from '../domain/recovery-codes.js';
import { noticeRecipient, sendSecurityNotice } from '../email/account-emails.js';
import { logger } from '../http/logger.js';
import { formOf, sessionCsrfHolds } from '../pages/forms.js';
import { seeOther } from '../pages/html.js';
import { accountPage, newRecoveryCodesPage, notSignedInPage } from '../pages/passkey-pages.js';
import { errorPage } from '../pages/sign-in-pages.js';
import { replaceRecoveryCodes } from '../store/credentials.js';
import type { PasskeyRecord } from '../store/passkey-entities.js';
import { listPasskeys, removePasskey, renamePasskey } from '../store/passkeys.js';
import { type Account, accountOf } from './account-session.js';
import { passkeyNameOf } from './credential-form.js';
import { enrolPasskey } from './enrolment.js';
import { PASSKEY_ID } from './rules.js';

/**
 * `/signin/account`: the signed-in person's passkeys: list, add (after a recent sign-in), rename,
 * remove; and, with an authenticator app, new recovery codes. The browser session says who; each
 * form carries the session's CSRF token. A change answers a redirect to the page (so a reload posts
 * nothing twice) saying what was done; new recovery codes are shown on the answer itself, once.
 */

const DONE: Record<string, string> = {
  added: 'Your passkey is added. Next time, choose "Sign in with a passkey".',
  renamed: 'The passkey is renamed.',
  removed: 'The passkey is removed: it no longer signs you in.',
};

const render = async (
  account: Account,
  extra: { done?: string; error?: string; status?: number } = {},
  passkeys?: PasskeyRecord[],
) =>
  accountPage({
    organizationName: account.organizationName,
    email: account.user.email,
    passkeys: passkeys ?? (await listPasskeys(account.user.organizationId, account.user.id)),
    csrf: account.csrf,
    ...(account.addRefusal ? { addRefusal: account.addRefusal } : {}),
    ...(account.user.totpSecret === undefined
      ? {}
      : { recoveryCodesLeft: account.user.recoveryCodeDigests?.size ?? 0 }),
    ...(account.codesRefusal ? { codesRefusal: account.codesRefusal } : {}),
    ...extra,
  });

/** `GET /signin/account`. */
export const showAccount = async (event: APIGatewayProxyEventV2): Promise<Page> => {
  const account = await accountOf(event, listPasskeys);
  if (!account) return notSignedInPage();
  const named = new URLSearchParams(event.rawQueryString).get('done') ?? '';
  // Its own names only: `constructor` or `toString` would find Object.prototype's.
  const done = Object.hasOwn(DONE, named) ? DONE[named] : undefined;
  return render(account, done ? { done } : {}, account.extra);
};

/** A form of the account page: the session's person, and the CSRF token bound to it. */
const accountForm = async (
  event: APIGatewayProxyEventV2,
  change: (account: Account, form: URLSearchParams) => Promise<Page>,
): Promise<Page> => {
  const form = formOf(event);
  if (!form) return errorPage(400, 'The form could not be read. Open your account page again.');
  const account = await accountOf(event);
  if (!account) return notSignedInPage();
  if (!sessionCsrfHolds(event, form))
    return errorPage(403, 'This form was not sent from your account page. Open your account page again.');
  const scope = auditScope();
  return withAuditScope({ ...scope, actor: { ...scope.actor, ...personActor(account.user) } }, () =>
    change(account, form),
  );
};

const CHANGED_MEANWHILE =
  'Your two-step verification changed meanwhile (new codes made in another tab, or the app reset), so no codes were made. What you have now is below.';

const backToAccount = (done: keyof typeof DONE) => seeOther(`/signin/account?done=${done}`);

/** `POST /signin/account/passkeys`: a passkey made on the account page. */
export const addFromAccount = (event: APIGatewayProxyEventV2) =>
  accountForm(event, async (account, form) => {
    if (account.addRefusal) return render(account, { error: account.addRefusal, status: 403 });
    const outcome = await enrolPasskey(form, account.binding, account.user);
    return outcome.added ? backToAccount('added') : render(account, { error: outcome.message, status: 400 });
  });

/** One of the person's passkeys by its id in the form; 404 for one that is not theirs. */
const onPasskey =
  (change: (account: Account, passkey: string, form: URLSearchParams) => Promise<Page>) =>
  (event: APIGatewayProxyEventV2) =>
    accountForm(event, async (account, form) => {
      const passkey = form.get('passkey') ?? '';
      try {
        if (!PASSKEY_ID.test(passkey)) throw new NotFound('Passkey', passkey);
        return await change(account, passkey, form);
      } catch (error) {
        if (!(error instanceof NotFound)) throw error;
        return render(account, {
          error: 'That passkey is not one of yours, or it was removed already.',
          status: 404,
        });
      }
    });

/** `POST /signin/account/passkeys/rename`. */
export const renameFromAccount = onPasskey(async (account, passkey, form) => {
  const name = passkeyNameOf(form.get('name'));
  if (!name) return render(account, { error: 'A passkey name has 1 to 64 characters.', status: 400 });
  await renamePasskey(account.user.organizationId, account.user.id, passkey, name);
  return backToAccount('renamed');
});

/** `POST /signin/account/passkeys/remove`. */
export const removeFromAccount = onPasskey(async (account, passkey) => {
  const { user } = account;
  // A stolen session cookie must not strip the owner's passkeys either (OWASP ASVS 3.7.1).
  if (!account.recentSignIn) {
    return render(account, {
      error:
        'To remove a passkey, sign in again through your application: your sign-in is more than 15 minutes old.',
      status: 403,
    });
  }
  await removePasskey(user.organizationId, user.id, passkey);
  // A stolen session could strip the owner's passkeys: the owner hears of it (ASVS 2.5.5).
  await sendSecurityNotice(noticeRecipient(user), 'passkey-removed');
  return backToAccount('removed');
});

/** `POST /signin/account/recovery-codes`: new recovery codes, shown once; the earlier ones stop working. */
export const regenerateRecoveryCodes = (event: APIGatewayProxyEventV2) =>
  accountForm(event, async (account) => {
    const { user } = account;
    if (account.codesRefusal || user.totpSecret === undefined)
      return render(account, { error: account.codesRefusal, status: 403 });
    const codes = newRecoveryCodes();
    const recoveryCodeDigests = codes.map((code) => recoveryCodeDigest(user.id, code));
    const replaced = await replaceRecoveryCodes(
      { ...user, totpSecret: user.totpSecret },
      account.authTime,
      recoveryCodeDigests,
      {
        organizationId: user.organizationId,
        action: 'mfa.recoveryCodes.regenerated',
        targets: [personTarget(user)],
        changes: changesBetween({ recoveryCodeDigests: user.recoveryCodeDigests }, { recoveryCodeDigests }),
      },
    );
    if (!replaced) {
      // Drawn as the person and session are now: the page read before may show an app since reset.
      const current = await accountOf(event);
      if (!current) return notSignedInPage();
      return render(current, { error: CHANGED_MEANWHILE, status: 409 });
    }
    try {
      await sendSecurityNotice(noticeRecipient(user), 'recovery-codes-regenerated', account.organizationName);
    } catch (error) {
      // The codes are replaced: they must be shown, or the person is left with none that work.
      logger.error('Security notice of new recovery codes not queued', { error, userId: user.id });
    }
    return newRecoveryCodesPage({ organizationName: account.organizationName, email: user.email, codes });
  });
