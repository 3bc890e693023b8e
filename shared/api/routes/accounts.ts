import { routeGroup } from '../route-definition.js';

/**
 * Hosted account pages: emailed links that set a password, "forgot your password?", and the
 * TOTP enrolment page (its QR code). A function of their own, so the sign-in function carries
 * neither the password list, the mail code nor the QR encoder.
 */
export const accountsRoutes = routeGroup('accounts')({
  showTotpEnrolment: {
    route: 'GET /signin/enrol',
    kind: 'page',
    summary: 'TOTP enrolment of a pending sign-in: the key as a QR code and as text, and the code form',
    description:
      'Shown during a sign-in, right after the password, to a person whose organization uses MFA and who has not enrolled yet (no token: the pending sign-in decides). The code confirming the key is posted to /signin/totp.',
    response: { status: 200, description: 'The enrolment page' },
  },
  showForgotPassword: {
    route: 'GET /signin/forgot',
    kind: 'page',
    summary: 'The "forgot your password?" form of a pending sign-in',
    description:
      'Linked from the sign-in page, for a person in the middle of signing in to an application (no token).',
    response: { status: 200, description: 'The form' },
  },
  submitForgotPassword: {
    route: 'POST /signin/forgot',
    kind: 'page',
    summary: 'Emails a password reset link (the same answer whether or not the email exists)',
    description:
      'An ACTIVE user gets an emailed link valid for 1 hour and once (a newer request voids it). The page and its timing (at least 400 ms) are the same whether or not the email exists, and requests count toward the sign-in attempts per client address.',
    response: { status: 200, description: 'Check your email' },
  },
  showInvitation: {
    route: 'GET /signin/invitation',
    kind: 'page',
    summary: 'The invitation link of the join email: the form for the first password',
    description:
      "Opened by the invited person from the join email; the link's token decides, no bearer token. Opening it changes nothing (mail scanners open links).",
    response: { status: 200, description: 'The form, or a page saying the link is no longer valid' },
  },
  acceptInvitation: {
    route: 'POST /signin/invitation',
    kind: 'page',
    summary: 'Sets the first password and uses the invitation link up',
    description:
      "Posted by the invitation form, with a CSRF token tied to the browser's cookie; the password must meet the password rules. The link is valid for 7 days and works once; the person then signs in from their application.",
    response: { status: 200, description: 'Password set' },
  },
  showPasswordReset: {
    route: 'GET /signin/reset',
    kind: 'page',
    summary: 'The emailed reset link: the form for a new password',
    description:
      "Opened from the reset email; the link's token decides, no bearer token. Opening it changes nothing.",
    response: { status: 200, description: 'The form, or a page saying the link is no longer valid' },
  },
  submitPasswordReset: {
    route: 'POST /signin/reset',
    kind: 'page',
    summary: "Sets a new password, uses the link up and ends the user's sessions and refresh tokens",
    description:
      "Posted by the reset form, with a CSRF token tied to the browser's cookie; the password must meet the password rules. It also clears the sign-in lockout count of the email.",
    response: { status: 200, description: 'Password set' },
  },
});
