import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { issueClientToken, OAuthError } from '../shared/auth/client-credentials.js';
import { publicJwks } from '../shared/auth/signing-keys.js';
import { SUPPORTED_SCOPES, tokenSettings } from '../shared/auth/token-service.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { jsonResponse } from '../shared/http/middleware/error-response.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const oauthError = (error: OAuthError, usedBasic: boolean) => ({
  raw: jsonResponse(
    error.status,
    { error: error.error, error_description: error.description },
    {
      ...NO_STORE,
      ...(usedBasic && error.status === 401 ? { 'www-authenticate': 'Basic realm="idp"' } : {}),
    },
  ),
});

const formBody = (event: APIGatewayProxyEventV2): URLSearchParams => {
  const contentType = event.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    throw new OAuthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  }
  const raw = event.body ?? '';
  return new URLSearchParams(event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw);
};

/** RFC 6749 2.3.1: the Basic credentials are form-urlencoded before base64. */
const basicCredentials = (authorization: string | undefined) => {
  const encoded = authorization?.match(/^Basic\s+(\S+)$/i)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials');
  const decode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError(401, 'invalid_client', 'Malformed Basic credentials');
    }
  };
  return {
    clientId: decode(decoded.slice(0, separator)),
    clientSecret: decode(decoded.slice(separator + 1)),
  };
};

/**
 * The token endpoint parses its form body itself: it answers RFC 6749 error bodies, not the
 * management API's error shape, and accepts exactly one client authentication method at a time.
 */
const issueToken = async (event: APIGatewayProxyEventV2) => {
  const usedBasic = /^Basic\s/i.test(event.headers.authorization ?? '');
  try {
    const form = formBody(event);
    const grantType = form.get('grant_type');
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Only client_credentials is supported');
    }
    const basic = basicCredentials(event.headers.authorization);
    const postedId = form.get('client_id');
    const postedSecret = form.get('client_secret');
    if (basic && postedSecret) {
      throw new OAuthError(400, 'invalid_request', 'Use one client authentication method, not two');
    }
    const clientId = basic?.clientId ?? postedId;
    const clientSecret = basic?.clientSecret ?? postedSecret;
    if (!clientId || !clientSecret)
      throw new OAuthError(401, 'invalid_client', 'Client credentials are required');
    if (basic && postedId && postedId !== basic.clientId) {
      throw new OAuthError(400, 'invalid_request', 'client_id does not match the Basic credentials');
    }
    const token = await issueClientToken(clientId, clientSecret, form.get('scope') ?? undefined);
    return {
      raw: jsonResponse(
        200,
        {
          access_token: token.accessToken,
          token_type: 'Bearer',
          expires_in: token.expiresIn,
          scope: token.scope,
        },
        NO_STORE,
      ),
    };
  } catch (error) {
    if (error instanceof OAuthError) return oauthError(error, usedBasic);
    throw error;
  }
};

/** OAuth 2.0 token endpoint, OpenID discovery and JWKS at the API root. */
export const handler = groupHandler('oauth', {
  issueToken: (_input, { event }) => issueToken(event),

  openIdConfiguration: () => {
    const { issuer } = tokenSettings();
    return {
      raw: jsonResponse(200, {
        issuer,
        token_endpoint: `${issuer}/oauth2/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: ['token'],
        scopes_supported: [...SUPPORTED_SCOPES],
        id_token_signing_alg_values_supported: ['ES256'],
        subject_types_supported: ['public'],
      }),
    };
  },

  jwks: async () => ({
    raw: jsonResponse(200, await publicJwks(), { 'cache-control': 'public, max-age=300' }),
  }),
});
