import { routeGroup } from '../route-definition.js';

/** Sign-in through an SSO provider's upstream OpenID Connect issuer (docs/single-sign-on.md). */
export const federationRoutes = routeGroup('federation')({
  startFederation: {
    route: 'GET /signin/sso',
    kind: 'page',
    summary: "Sends the person to an SSO provider's upstream to sign in (authorization code with PKCE)",
    description:
      "Opened from the sign-in page by a person signing in to an application whose organization an SSO provider serves (no token: the pending sign-in decides); the upstream gets state, nonce and a PKCE challenge. `fresh=1` asks the upstream to sign the person in again (`prompt=login`, `max_age=0`): the callback sends the person here so when the upstream's sign-in predates a change to the account.",
    response: { status: 303, description: 'To the upstream, or an error page' },
  },
  finishFederation: {
    route: 'GET /signin/sso/callback/{clientId}',
    kind: 'page',
    summary:
      "The upstream's redirect back (one redirect URI per provider): validates its answer, then continues signing in",
    description:
      'Checks the state, redeems the code at the upstream and validates its ID token; a verified email of an ACTIVE user (or one created just in time, when the provider allows it) continues with the usual sign-in steps. Failures are pages saying what happened (403 or 502).',
    response: {
      status: 303,
      description: 'The next sign-in step, back to the application, or an error page',
    },
  },
});
