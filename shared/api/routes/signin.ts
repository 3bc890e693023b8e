import { routeGroup } from '../route-definition.js';

/** Hosted sign-in pages (OpenID Connect, the browser side), at the API root. */
export const signinRoutes = routeGroup('signin')({
  authorize: {
    route: 'GET /oauth2/authorize',
    kind: 'page',
    summary: 'OpenID Connect authorization endpoint: code flow with PKCE (S256); shows the sign-in page',
    response: { status: 200, description: 'The sign-in page, or a redirect back to the application' },
  },
  submitSignIn: {
    route: 'POST /signin',
    kind: 'page',
    summary: 'The sign-in form: email and password',
    response: {
      status: 303,
      description: 'The next step, back to the application with a code, or the form again',
    },
  },
  submitTotp: {
    route: 'POST /signin/totp',
    kind: 'page',
    summary: 'Two-step verification: the code confirming TOTP enrolment, or a TOTP or recovery code',
    response: { status: 200, description: 'The next step, or the form again' },
  },
  submitContinue: {
    route: 'POST /signin/continue',
    kind: 'page',
    summary: 'Continues signing in after the recovery codes were shown',
    response: { status: 303, description: 'The next step, or back to the application with a code' },
  },
  submitConsent: {
    route: 'POST /signin/consent',
    kind: 'page',
    summary: 'Accepts (or declines) the latest agreement while signing in',
    response: { status: 303, description: 'Back to the application with a code, or with access_denied' },
  },
  endSession: {
    route: 'GET /oauth2/logout',
    kind: 'page',
    summary:
      'OpenID Connect RP-Initiated Logout: signs out at once with an ID token hint of the session, otherwise asks',
    response: {
      status: 200,
      description: 'Signed out, a page asking to confirm, or a redirect to a registered post-logout URI',
    },
  },
  confirmEndSession: {
    route: 'POST /oauth2/logout',
    kind: 'page',
    summary: 'Signs out after the person confirmed it on the page the logout endpoint showed',
    response: { status: 200, description: 'Signed out, or a redirect to a registered post-logout URI' },
  },
});
