import type { PasskeyRecord } from '../store/passkey-entities.js';
import { html, page } from './html.js';
import { passkeyForm } from './passkey-forms.js';
import { alert, heading, type SignInNames, stepForm } from './sign-in-pages.js';

/** The passkey pages: the prompt after a password sign-in, and the account page. */

/** After a password sign-in: add a passkey, or not now. */
export const passkeyPromptPage = (
  options: SignInNames & { requestId: string; error?: string; status?: number },
) =>
  page(
    options.status ?? 200,
    'Sign in faster with a passkey',
    html`${heading('Sign in faster with a passkey', options)}
${alert(options.error)}
<p>Next time, sign in with your fingerprint, face or screen lock instead of your password. A passkey works only on this site, so nobody can trick you into giving it away.</p>
${passkeyForm('enrol', '/signin/passkeys', { request: options.requestId }, 'Add a passkey')}
${stepForm('/signin/passkeys/skip', options.requestId, html`<button type="submit" class="secondary">Not now</button>`)}`,
    { passkeyScript: true },
  );

const dateOf = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

const passkeyEntry = (passkey: PasskeyRecord, csrf: string) =>
  html`<li><strong>${passkey.name}</strong>
<p class="note">Added ${dateOf(passkey.createdAt)}${passkey.lastUsedAt ? html` · last used ${dateOf(passkey.lastUsedAt)}` : ''} · ${passkey.backupEligible ? 'synced across your devices' : 'on one device only'}</p>
${passkey.flaggedAt ? html`<p class="error">A sign-in with this passkey was refused on ${dateOf(passkey.flaggedAt)}: its counter went backwards, which a copied security key does. If you did not expect this, remove it.</p>` : ''}
<form method="post" action="/signin/account/passkeys/rename">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="passkey" value="${passkey.credentialKey}">
<label for="name-${passkey.credentialKey}">Name</label>
<input id="name-${passkey.credentialKey}" name="name" value="${passkey.name}" required maxlength="64">
<button type="submit" class="secondary">Rename</button>
</form>
<form method="post" action="/signin/account/passkeys/remove">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="passkey" value="${passkey.credentialKey}">
<button type="submit" class="secondary" aria-label="Remove ${passkey.name}">Remove</button>
</form></li>`;

/** `/signin/account`: the signed-in person's passkeys. */
export const accountPage = (options: {
  organizationName: string;
  email: string;
  passkeys: readonly PasskeyRecord[];
  csrf: string;
  /** Adding needs a recent sign-in; otherwise this says why not. */
  addRefusal?: string;
  /** The recovery codes left, for a person with an authenticator app. */
  recoveryCodesLeft?: number;
  /** Why new recovery codes may not be made now, if they may not. */
  codesRefusal?: string;
  done?: string;
  error?: string;
  status?: number;
}) =>
  page(
    options.status ?? 200,
    'Your passkeys',
    html`<h1>Your passkeys</h1>
<p class="org">${options.email} at <strong>${options.organizationName}</strong></p>
${options.done ? html`<p class="done" role="status">${options.done}</p>` : ''}
${alert(options.error)}
${
  options.passkeys.length
    ? html`<ul class="passkeys">${options.passkeys.map((passkey) => passkeyEntry(passkey, options.csrf))}</ul>`
    : html`<p>You have no passkey yet.</p>`
}
${
  options.addRefusal
    ? html`<p class="note">${options.addRefusal}</p>`
    : passkeyForm('account', '/signin/account/passkeys', { csrf: options.csrf }, 'Add a passkey')
}
${options.recoveryCodesLeft === undefined ? '' : recoveryCodesSection(options.recoveryCodesLeft, options.csrf, options.codesRefusal)}`,
    { passkeyScript: true },
  );

/** The account page's part on two-step verification: the recovery codes left, and new ones. */
const recoveryCodesSection = (left: number, csrf: string, refusal?: string) =>
  html`<h2>Two-step verification</h2>
<p>You have ${left === 0 ? 'no recovery codes' : left === 1 ? 'one recovery code' : `${left} recovery codes`} left. New ones replace them all.</p>
${
  refusal
    ? html`<p class="note">${refusal}</p>`
    : html`<form method="post" action="/signin/account/recovery-codes">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" class="secondary">Make new recovery codes</button>
</form>`
}`;

/** New recovery codes made on the account page, shown this once. */
export const newRecoveryCodesPage = (options: { organizationName: string; email: string; codes: string[] }) =>
  page(
    200,
    'Your new recovery codes',
    html`<h1>Your new recovery codes</h1>
<p class="org">${options.email} at <strong>${options.organizationName}</strong></p>
<p class="done" role="status">Your earlier recovery codes no longer work.</p>
<p>If you lose your device, each of these codes signs you in once instead of an authentication code. Keep them somewhere safe: they are shown only now.</p>
<ul class="codes">${options.codes.map((code) => html`<li>${code}</li>`)}</ul>
<p><a href="/signin/account">Back to your account</a></p>`,
  );

export const notSignedInPage = () =>
  page(
    401,
    'Not signed in',
    html`<h1>You are not signed in</h1>
<p class="error" role="alert">Sign in through your application first, then open this page again.</p>`,
  );
