import { routeGroup } from '../route-definition.js';

/** OAuth 2.0 and OpenID Connect endpoints at the API root. */
export const oauthRoutes = routeGroup('oauth')({
  issueToken: {
    route: 'POST /oauth2/token',
    kind: 'oauth',
    summary: 'OAuth 2.0 token endpoint (client credentials grant)',
    response: { status: 200, description: 'Access token' },
  },
  openIdConfiguration: {
    route: 'GET /.well-known/openid-configuration',
    kind: 'public',
    summary: 'OpenID Connect discovery document',
    response: { status: 200, description: 'Discovery document' },
  },
  jwks: {
    route: 'GET /.well-known/jwks.json',
    kind: 'public',
    summary: 'Public keys that verify access tokens',
    response: { status: 200, description: 'JSON Web Key Set' },
  },
});
