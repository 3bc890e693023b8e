import { ALL_USER_TYPES, defineRoute } from '../route-definition.js';

/** OAuth 2.0 and OpenID Connect endpoints at the API root. */
export const oauthRoutes = {
  issueToken: defineRoute({
    operationId: 'issueToken',
    method: 'POST',
    path: '/oauth2/token',
    group: 'oauth',
    kind: 'oauth',
    summary: 'OAuth 2.0 token endpoint (client credentials grant)',
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: { status: 200, description: 'Access token' },
  }),
  openIdConfiguration: defineRoute({
    operationId: 'openIdConfiguration',
    method: 'GET',
    path: '/.well-known/openid-configuration',
    group: 'oauth',
    kind: 'public',
    summary: 'OpenID Connect discovery document',
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: { status: 200, description: 'Discovery document' },
  }),
  jwks: defineRoute({
    operationId: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    group: 'oauth',
    kind: 'public',
    summary: 'Public keys that verify access tokens',
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: { status: 200, description: 'JSON Web Key Set' },
  }),
} as const;
