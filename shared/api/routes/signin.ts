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
    response: { status: 303, description: 'Back to the application with a code, or the form again' },
  },
  endSession: {
    route: 'GET /oauth2/logout',
    kind: 'page',
    summary: 'OpenID Connect RP-Initiated Logout',
    response: { status: 200, description: 'Signed out, or a redirect to a registered post-logout URI' },
  },
});
