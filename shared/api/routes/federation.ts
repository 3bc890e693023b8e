import { routeGroup } from '../route-definition.js';

/** Sign-in through an SSO provider's upstream OpenID Connect issuer (README, "Single sign-on"). */
export const federationRoutes = routeGroup('federation')({
  startFederation: {
    route: 'GET /signin/sso',
    kind: 'page',
    summary: "Sends the person to an SSO provider's upstream to sign in (authorization code with PKCE)",
    response: { status: 303, description: 'To the upstream, or an error page' },
  },
  finishFederation: {
    route: 'GET /signin/sso/callback/{clientId}',
    kind: 'page',
    summary:
      "The upstream's redirect back (one redirect URI per provider): validates its answer, then continues signing in",
    response: {
      status: 303,
      description: 'The next sign-in step, back to the application, or an error page',
    },
  },
});
