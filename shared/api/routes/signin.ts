import { routeGroup } from '../route-definition.js';

/** Hosted sign-in pages (OpenID Connect, the browser side), at the API root. */
export const signinRoutes = routeGroup('signin')({
  authorize: {
    route: 'GET /oauth2/authorize',
    kind: 'page',
    summary: 'OpenID Connect authorization endpoint: code flow with PKCE (S256); shows the sign-in page',
    description:
      'Opened by the browser of a person signing in to a registered application: `response_type=code`, `code_challenge` with S256 and a `scope` containing `openid`; `prompt=none` and `prompt=login` are honoured. An unknown client or an unregistered redirect URI gets an error page, never a redirect.',
    response: { status: 200, description: 'The sign-in page, or a redirect back to the application' },
  },
  authorizeByPost: {
    route: 'POST /oauth2/authorize',
    kind: 'page',
    summary: 'The authorization endpoint, its parameters posted as a form',
    description:
      'OpenID Connect Core 3.1.2.1: the same request as `GET /oauth2/authorize`, its parameters in an `application/x-www-form-urlencoded` body (at most 64 KiB). A cross-site post carries no `SameSite=Lax` cookie, so a valid request is kept a minute (a reload finds it again), and the browser is sent on to `GET /oauth2/authorize` with a `request_uri` naming it, which carries its cookies (a session is reused; no sign-in under way in another tab ends). A request the GET would refuse is refused here, the same way.',
    response: {
      status: 303,
      description: 'On to the GET with a request_uri, or back to the application with an error',
    },
  },
  submitSignIn: {
    route: 'POST /signin',
    kind: 'page',
    summary: 'The sign-in form: email and password',
    description:
      'Posted by the sign-in page, only from the browser that opened the authorization request (login CSRF is refused). A wrong password, an unknown email and an INACTIVE user get the same answer; after 5 failures in a row the email is locked out for a while.',
    response: {
      status: 303,
      description: 'The next step, back to the application with a code, or the form again',
    },
  },
  submitTotp: {
    route: 'POST /signin/totp',
    kind: 'page',
    summary: 'Two-step verification: the code confirming TOTP enrolment, or a TOTP or recovery code',
    description:
      'Posted by the enrolment or the code page of a pending sign-in; a time step is accepted once, each recovery code works once, and wrong codes count toward the lockout.',
    response: { status: 200, description: 'The next step, or the form again' },
  },
  submitContinue: {
    route: 'POST /signin/continue',
    kind: 'page',
    summary: 'Continues signing in after the recovery codes were shown',
    description:
      'Posted from the page that showed the 10 recovery codes of a new TOTP enrolment (shown once).',
    response: { status: 303, description: 'The next step, or back to the application with a code' },
  },
  submitConsent: {
    route: 'POST /signin/consent',
    kind: 'page',
    summary: 'Accepts (or declines) the latest agreement while signing in',
    description:
      'Posted by the agreement page of a pending sign-in: Accept records the same consent as POST /idp/consent/{agreementId}; Decline returns `access_denied` to the application.',
    response: { status: 303, description: 'Back to the application with a code, or with access_denied' },
  },
  endSession: {
    route: 'GET /oauth2/logout',
    kind: 'page',
    summary:
      'OpenID Connect RP-Initiated Logout: signs out at once with an ID token hint of the session, otherwise asks',
    description:
      "Opened by the browser. With an `id_token_hint` of this issuer that matches the browser session, signs the person out at once and, when the hint's application registered the `post_logout_redirect_uri`, redirects there (with `state` passed on). Without a hint, or with one of another session, shows a page asking the person to confirm (OpenID Connect RP-Initiated Logout 1.0, section 2), so that no other site can sign people out; without a session, the signed-out page.",
    response: {
      status: 200,
      description: 'Signed out, a page asking to confirm, or a redirect to a registered post-logout URI',
    },
  },
  confirmEndSession: {
    route: 'POST /oauth2/logout',
    kind: 'page',
    summary:
      "Signs out after the person confirmed it on the page the logout endpoint showed, or takes an application's logout request sent as a form",
    description:
      "The confirmation form of `GET /oauth2/logout`: its token (`csrf`) is bound to the browser session, so only the page this browser was shown can sign it out (403 otherwise, and nothing changes). Redirects only as `GET /oauth2/logout` would with the same parameters. A form without `csrf` is an application's logout request sent by POST (OpenID Connect RP-Initiated Logout 1.0, section 2): it changes nothing and sends the browser on to `GET /oauth2/logout` with its parameters (303), whose top-level GET carries the `SameSite=Lax` session cookie that a cross-site POST does not.",
    response: { status: 200, description: 'Signed out, or a redirect to a registered post-logout URI' },
  },
});
