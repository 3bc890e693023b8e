import { routeGroup } from '../route-definition.js';

/** OAuth 2.0 and OpenID Connect endpoints at the API root. */
export const oauthRoutes = routeGroup('oauth')({
  issueToken: {
    route: 'POST /oauth2/token',
    kind: 'oauth',
    summary:
      'OAuth 2.0 token endpoint: client credentials, authorization code (PKCE) and refresh token grants',
    response: { status: 200, description: 'Access token' },
  },
  getUserInfo: {
    route: 'GET /oauth2/userinfo',
    kind: 'oauth',
    summary: 'OpenID Connect UserInfo: claims of the person a bearer access token was issued for',
    response: { status: 200, description: 'Claims' },
  },
  postUserInfo: {
    route: 'POST /oauth2/userinfo',
    kind: 'oauth',
    summary: 'OpenID Connect UserInfo, by POST',
    response: { status: 200, description: 'Claims' },
  },
  revokeToken: {
    route: 'POST /oauth2/revoke',
    kind: 'oauth',
    summary: 'OAuth 2.0 token revocation (RFC 7009): refresh tokens, with every token of their sign-in',
    response: { status: 200, description: 'Revoked, or nothing to revoke' },
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
