import { html, page } from './html.js';

/** The pages of signing in; each names the organization the person signs in to. */

export const signInPage = (options: {
  organizationName: string;
  applicationName: string;
  requestId: string;
  email?: string;
  error?: string;
  status?: number;
  cookies?: string[];
}) =>
  page(
    options.status ?? 200,
    `Sign in to ${options.organizationName}`,
    html`<h1>Sign in</h1>
<p class="org">to <strong>${options.organizationName}</strong> for ${options.applicationName}</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/signin">
<input type="hidden" name="request" value="${options.requestId}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`,
    options.cookies ? { cookies: options.cookies } : {},
  );

export const errorPage = (status: number, message: string) =>
  page(
    status,
    'Sign-in error',
    html`<h1>Something went wrong</h1>
<p class="error" role="alert">${message}</p>
<p class="note">Go back to the application and start again. If this keeps happening, contact its administrator.</p>`,
  );

export const signedOutPage = (cookies: string[]) =>
  page(
    200,
    'Signed out',
    html`<h1>Signed out</h1>
<p>You are signed out. You can close this window.</p>`,
    { cookies },
  );
