import { html, type Markup, page } from './html.js';
import { passkeySignIn } from './passkey-forms.js';

/** The pages of signing in; each names the organization the person signs in to. */

export interface SignInNames {
  organizationName: string;
  applicationName: string;
}

export const heading = (title: string, names: SignInNames) =>
  html`<h1>${title}</h1>
<p class="org">to <strong>${names.organizationName}</strong> for ${names.applicationName}</p>`;

export const alert = (error: string | undefined) =>
  error ? html`<p class="error" role="alert">${error}</p>` : '';

/** A form of the sign-in steps: posts back the pending request it belongs to. */
export const stepForm = (action: string, requestId: string, fields: Markup) =>
  html`<form method="post" action="${action}">
<input type="hidden" name="request" value="${requestId}">
${fields}
</form>`;

/** An SSO provider the sign-in page offers ("Continue with ..."). */
export interface SignInProvider {
  clientId: string;
  displayName: string;
}

/** One GET form: each provider's button sends `provider` with the pending request. */
/** What the sign-in page says about SSO providers: a link for each, and whether emails route. */
export const offered = (options: readonly (SignInProvider & { emailDomains: readonly string[] })[]) => ({
  providers: options,
  routesByEmail: options.some((option) => option.emailDomains.length > 0),
});

const providerButtons = (requestId: string, providers: readonly SignInProvider[]) =>
  providers.length
    ? html`<p class="links note">or</p>
<form method="get" action="/signin/sso">
<input type="hidden" name="request" value="${requestId}">
${providers.map((provider) => html`<button type="submit" class="secondary" name="provider" value="${provider.clientId}">Continue with ${provider.displayName}</button>`)}
</form>`
    : '';

export const signInPage = (
  options: SignInNames & {
    requestId: string;
    email?: string;
    error?: string;
    status?: number;
    cookies?: string[];
    providers?: readonly SignInProvider[];
    /** Some emails go to an SSO provider: the password may stay empty for them. */
    routesByEmail?: boolean;
  },
) =>
  page(
    options.status ?? 200,
    `Sign in to ${options.organizationName}`,
    html`${heading('Sign in', options)}
${alert(options.error)}
${stepForm(
  '/signin',
  options.requestId,
  html`<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username webauthn" required maxlength="320" value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password"${options.routesByEmail ? '' : ' required'} maxlength="1024">
${options.routesByEmail ? html`<p class="note">If your organization signs you in elsewhere, leave the password empty.</p>` : ''}
<input type="hidden" name="passkeys" value="" data-passkey-capable>
<button type="submit">Sign in</button>`,
)}
${passkeySignIn(options.requestId, 'Sign in with a passkey', { autofill: true })}
${providerButtons(options.requestId, options.providers ?? [])}
<p class="links"><a href="/signin/forgot?request=${options.requestId}">Forgot your password?</a></p>`,
    { passkeyScript: true, ...(options.cookies ? { cookies: options.cookies } : {}) },
  );

/** A person with passkeys may use one instead of a code (a second factor). */
export const passkeyInstead = (requestId: string, offered: boolean | undefined) =>
  offered ? passkeySignIn(requestId, 'Use a passkey instead') : '';

export const totpChallengePage = (
  options: SignInNames & { requestId: string; error?: string; status?: number; passkeys?: boolean },
) =>
  page(
    options.status ?? 200,
    'Two-step verification',
    html`${heading('Two-step verification', options)}
${alert(options.error)}
<p>Type the 6-digit code from your authenticator app, or one of your recovery codes.</p>
${stepForm(
  '/signin/totp',
  options.requestId,
  html`<label for="code">Authentication code</label>
<input id="code" name="code" autocomplete="one-time-code" maxlength="32" required>
<button type="submit">Continue</button>`,
)}
${passkeyInstead(options.requestId, options.passkeys)}`,
    { passkeyScript: options.passkeys === true },
  );

export const recoveryCodesPage = (options: SignInNames & { requestId: string; codes: string[] }) =>
  page(
    200,
    'Your recovery codes',
    html`${heading('Save your recovery codes', options)}
<p class="done" role="status">Two-step verification is set up.</p>
<p>If you lose your device, each of these codes signs you in once instead of an authentication code. Keep them somewhere safe: they are shown only now.</p>
<ul class="codes">${options.codes.map((code) => html`<li>${code}</li>`)}</ul>
${stepForm('/signin/continue', options.requestId, html`<button type="submit">Continue</button>`)}`,
  );

export const consentPage = (
  options: SignInNames & { requestId: string; agreementId: string; agreementUrl: string },
) =>
  page(
    200,
    'Accept the agreement',
    html`${heading('Accept the agreement', options)}
<p>Before you continue, read and accept ${
      /^https?:\/\//i.test(options.agreementUrl)
        ? html`<a href="${options.agreementUrl}" target="_blank" rel="noopener noreferrer">the agreement</a>`
        : html`the agreement at <code>${options.agreementUrl}</code>`
    }.</p>
${stepForm(
  '/signin/consent',
  options.requestId,
  html`<input type="hidden" name="agreement" value="${options.agreementId}">
<button type="submit" name="decision" value="accept">Accept</button>
<button type="submit" name="decision" value="decline" class="secondary">Decline</button>`,
)}`,
  );

export const errorPage = (status: number, message: string) =>
  page(
    status,
    'Sign-in error',
    html`<h1>Something went wrong</h1>
<p class="error" role="alert">${message}</p>
<p class="note">Go back to the application and start again. If this keeps happening, contact its administrator.</p>`,
  );

export const tooManyAttemptsPage = () =>
  page(
    429,
    'Too many attempts',
    html`<h1>Too many attempts</h1>
<p class="error" role="alert">There were too many sign-in attempts from your network. Wait a minute, then go back and try again.</p>`,
    { headers: { 'retry-after': '60' } },
  );

/**
 * Asks before signing out (OpenID Connect RP-Initiated Logout 1.0 section 4), when nothing in the
 * request proves the application of this very session asked: the form carries a token bound to
 * the session, and the logout request's own parameters, checked again when it comes back.
 */
export const confirmSignOutPage = (options: {
  organizationName: string;
  csrf: string;
  parameters: readonly (readonly [string, string])[];
}) =>
  page(
    200,
    'Sign out?',
    html`<h1>Sign out?</h1>
<p class="org">You are signed in to <strong>${options.organizationName}</strong> in this browser.</p>
<p>Do you want to sign out?</p>
<form method="post" action="/oauth2/logout">
<input type="hidden" name="csrf" value="${options.csrf}">
${options.parameters.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">Sign out</button>
</form>
<p class="note">If you did not ask to sign out, close this page: you stay signed in.</p>`,
  );

export const signedOutPage = (cookies: string[]) =>
  page(
    200,
    'Signed out',
    html`<h1>Signed out</h1>
<p>You are signed out. You can close this window.</p>`,
    { cookies },
  );
