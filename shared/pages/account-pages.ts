import { html, Markup, page } from './html.js';
import { alert, heading, passkeyInstead, type SignInNames, stepForm } from './sign-in-pages.js';

/** The pages of emailed links and forgotten passwords; each names the organization. */

const organizationLine = (organizationName: string) =>
  html`<p class="org">for <strong>${organizationName}</strong></p>`;

export const choosePasswordPage = (options: {
  purpose: 'invitation' | 'reset';
  action: string;
  organizationName: string;
  email: string;
  token: string;
  csrf: string;
  error?: string;
  status?: number;
  cookies?: string[];
}) =>
  page(
    options.status ?? 200,
    options.purpose === 'invitation' ? 'Choose your password' : 'Choose a new password',
    html`<h1>${options.purpose === 'invitation' ? 'Welcome! Choose your password' : 'Choose a new password'}</h1>
${organizationLine(options.organizationName)}
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="${options.action}">
<input type="hidden" name="token" value="${options.token}">
<input type="hidden" name="csrf" value="${options.csrf}">
<label for="email">Email</label>
<input id="email" type="email" autocomplete="username" value="${options.email}" readonly>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="1024">
<label for="confirm">Confirm password</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="12" maxlength="1024">
<p class="note">At least 12 characters. Commonly used passwords are refused.</p>
<button type="submit">${options.purpose === 'invitation' ? 'Set password' : 'Change password'}</button>
</form>`,
    options.cookies ? { cookies: options.cookies } : {},
  );

export const passwordSetPage = (organizationName: string) =>
  page(
    200,
    'Password set',
    html`<h1>Your password is set</h1>
${organizationLine(organizationName)}
<p class="done" role="status">You can now sign in to ${organizationName} from your application with your email and this password.</p>
<p class="note">You can close this window.</p>`,
  );

export const forgotPasswordPage = (options: {
  organizationName: string;
  requestId: string;
  error?: string;
  status?: number;
}) =>
  page(
    options.status ?? 200,
    'Forgot your password?',
    html`<h1>Forgot your password?</h1>
${organizationLine(options.organizationName)}
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<p>Type your email. If it belongs to an account, we send it a link to choose a new password.</p>
<form method="post" action="/signin/forgot">
<input type="hidden" name="request" value="${options.requestId}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320">
<button type="submit">Send link</button>
</form>`,
  );

export const resetLinkSentPage = (organizationName: string) =>
  page(
    200,
    'Check your email',
    html`<h1>Check your email</h1>
${organizationLine(organizationName)}
<p class="done" role="status">If the email belongs to an account, a link to choose a new password is on its way. The link works once and for one hour.</p>
<p class="note">Nothing arrived? Check your spam folder, or ask again in a few minutes.</p>`,
  );

export const totpEnrolmentPage = (
  options: SignInNames & {
    requestId: string;
    otpauthUri: string;
    secret: string;
    /** The QR code as an SVG document (generated here from the URI, so trusted markup); none when it cannot hold the URI. */
    qrSvg?: string | undefined;
    error?: string;
    status?: number;
    /** The person holds passkeys: one may serve instead of an authenticator app. */
    passkeys?: boolean;
  },
) =>
  page(
    options.status ?? 200,
    'Set up two-step verification',
    html`${heading('Set up two-step verification', options)}
${alert(options.error)}
<p>${options.organizationName} asks for a code from an authenticator app at each sign-in. Scan this QR code with the app (or enter the key below), then type the 6-digit code it shows.</p>
${options.qrSvg ? new Markup(options.qrSvg.replace('<svg ', '<svg class="qr" role="img" aria-label="QR code of the authenticator key" ')) : ''}
<p class="note">Key: <code>${options.secret}</code></p>
<p class="note">Or open this link on the device with the app: <code>${options.otpauthUri}</code></p>
${stepForm(
  '/signin/totp',
  options.requestId,
  html`<label for="code">Authentication code</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit">Continue</button>`,
)}
${passkeyInstead(options.requestId, options.passkeys)}`,
    { passkeyScript: options.passkeys === true },
  );
