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
    response: { status: 200, description: 'The enrolment page' },
  },
  showForgotPassword: {
    route: 'GET /signin/forgot',
    kind: 'page',
    summary: 'The "forgot your password?" form of a pending sign-in',
    response: { status: 200, description: 'The form' },
  },
  submitForgotPassword: {
    route: 'POST /signin/forgot',
    kind: 'page',
    summary: 'Emails a password reset link (the same answer whether or not the email exists)',
    response: { status: 200, description: 'Check your email' },
  },
  showInvitation: {
    route: 'GET /signin/invitation',
    kind: 'page',
    summary: 'The invitation link of the join email: the form for the first password',
    response: { status: 200, description: 'The form, or a page saying the link is no longer valid' },
  },
  acceptInvitation: {
    route: 'POST /signin/invitation',
    kind: 'page',
    summary: 'Sets the first password and uses the invitation link up',
    response: { status: 200, description: 'Password set' },
  },
  showPasswordReset: {
    route: 'GET /signin/reset',
    kind: 'page',
    summary: 'The emailed reset link: the form for a new password',
    response: { status: 200, description: 'The form, or a page saying the link is no longer valid' },
  },
  submitPasswordReset: {
    route: 'POST /signin/reset',
    kind: 'page',
    summary: "Sets a new password, uses the link up and ends the user's sessions and refresh tokens",
    response: { status: 200, description: 'Password set' },
  },
});
