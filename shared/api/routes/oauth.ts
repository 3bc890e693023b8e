import { routeGroup } from '../route-definition.js';

/** OAuth 2.0 and OpenID Connect endpoints at the API root. */
export const oauthRoutes = routeGroup('oauth')({
  issueToken: {
    route: 'POST /oauth2/token',
    kind: 'oauth',
    summary:
      'OAuth 2.0 token endpoint: client credentials, authorization code (PKCE) and refresh token grants',
    description:
      "Called by API clients and applications with exactly one client authentication method (HTTP Basic, the form's secret, or none for a public application); form-encoded only. Access tokens are ES256 JWTs (3,600 s for client credentials, 900 s for people); errors follow RFC 6749, section 5.2.",
    response: { status: 200, description: 'Access token' },
  },
  pushAuthorizationRequest: {
    route: 'POST /oauth2/par',
    kind: 'oauth',
    summary: 'Pushed authorization request (RFC 9126): the authorization request, posted by the application',
    description:
      'Called by an application authenticated as at the token endpoint, with the parameters it would send to `GET /oauth2/authorize`, form-encoded. Checked as the authorization endpoint checks them; a refusal is a JSON error here, never a redirect. Answers a `request_uri` that `GET /oauth2/authorize?client_id=…&request_uri=…` takes once, within 60 s, for this client only.',
    response: { status: 201, description: 'The request_uri naming the stored request, and its lifetime' },
  },
  getUserInfo: {
    route: 'GET /oauth2/userinfo',
    kind: 'oauth',
    summary: 'OpenID Connect UserInfo: claims of the person a bearer access token was issued for',
    description:
      "Called with a person's bearer access token of a sign-in with `openid` (another is 403 `insufficient_scope`); answers `sub` and, with the `email` and `profile` scopes, `email` and `name`.",
    response: { status: 200, description: 'Claims' },
  },
  postUserInfo: {
    route: 'POST /oauth2/userinfo',
    kind: 'oauth',
    summary: 'OpenID Connect UserInfo, by POST',
    description: 'The same as GET /oauth2/userinfo, for clients that send a POST.',
    response: { status: 200, description: 'Claims' },
  },
  revokeToken: {
    route: 'POST /oauth2/revoke',
    kind: 'oauth',
    summary: 'OAuth 2.0 token revocation (RFC 7009): refresh tokens, with every token of their sign-in',
    description:
      'Called by the application holding the token, authenticated as at the token endpoint. A refresh token is revoked with every refresh token of its sign-in. An access token of the service is not revoked (it expires within minutes) and answers 400 `unsupported_token_type` (RFC 7009 2.2.1); a refresh token of another application is not revoked and answers 400 `unauthorized_client` (2.1); anything else answers 200 and changes nothing, as RFC 7009 asks.',
    response: { status: 200, description: 'Revoked, or nothing to revoke' },
  },
  introspectToken: {
    route: 'POST /oauth2/introspect',
    kind: 'oauth',
    summary: 'OAuth 2.0 token introspection (RFC 7662): whether a token is active, and what it grants',
    description:
      'Called by a client with a secret (a resource server), authenticated as at the token endpoint; form-encoded `token` (`token_type_hint` is not needed). An access token is active for clients of its organization while it is valid and its client and person still are (ACTIVE, no new password since); a refresh token only for the client it was issued to. Anything else answers `{"active": false}`.',
    response: { status: 200, description: 'The token is active with its claims, or `{"active": false}`' },
  },
  openIdConfiguration: {
    route: 'GET /.well-known/openid-configuration',
    kind: 'public',
    summary: 'OpenID Connect discovery document',
    description:
      'Public, no token: the issuer, the endpoints, and the grants, scopes and algorithms supported, for OpenID Connect clients to configure themselves.',
    response: { status: 200, description: 'Discovery document' },
  },
  jwks: {
    route: 'GET /.well-known/jwks.json',
    kind: 'public',
    summary: 'Public keys that verify access and ID tokens',
    description:
      'Public, no token: every key of the RS256 key set (ID tokens) and of the ES256 key set (access tokens; ID tokens of applications registered for ES256); after a rotation the previous keys stay until the tokens they signed have expired.',
    response: { status: 200, description: 'JSON Web Key Set' },
  },
});
