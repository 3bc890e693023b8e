import { html } from './html.js';

/**
 * The passkey forms of the hosted pages. Each is hidden until the script finds WebAuthn in the
 * browser, so without scripts the pages offer what they offered before.
 */

/** Where the script says what went wrong in the browser (cancelled, not available). */
const browserMessage = html`<p class="error" role="alert" data-passkey-message hidden></p>`;

/**
 * A form the script runs a ceremony for (`purpose`), then posts to `action` with the answer in
 * `credential`; `fields` are its hidden fields (the pending request, or the CSRF token).
 */
export const passkeyForm = (
  purpose: 'sign-in' | 'enrol' | 'account',
  action: string,
  fields: Record<string, string>,
  label: string,
  options: { secondary?: boolean; autofill?: boolean } = {},
) =>
  html`<form method="post" action="${action}" data-passkey="${purpose}"${options.autofill ? html` data-autofill="true"` : ''} hidden>
${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<input type="hidden" name="credential" value="">
<button type="submit"${options.secondary ? html` class="secondary"` : ''}>${label}</button>
</form>
${browserMessage}`;

/** "Sign in with a passkey" (and autofill) under the sign-in form; "Use a passkey instead" at MFA. */
export const passkeySignIn = (requestId: string, label: string, options: { autofill?: boolean } = {}) =>
  passkeyForm('sign-in', '/signin/passkey', { request: requestId }, label, { secondary: true, ...options });
