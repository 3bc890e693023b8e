import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routeUrl } from '../shared/api/route-url.js';
import { oauthRoutes } from '../shared/api/routes/oauth.js';
import { issueClientToken } from '../shared/auth/client-credentials.js';
import { OAuthError } from '../shared/auth/oauth-error.js';
import { publicJwks } from '../shared/auth/signing-keys.js';
import { clientCredentialsOf, tokenRequestForm } from '../shared/auth/token-request.js';
import { SUPPORTED_SCOPES } from '../shared/auth/token-service.js';
import { config } from '../shared/config.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { jsonResponse } from '../shared/http/middleware/error-response.js';
import { countMetric } from '../shared/observability/metrics.js';

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

/**
 * The token endpoint parses its form body itself: it answers RFC 6749 error bodies, not the
 * management API's error shape, and accepts exactly one client authentication method at a time.
 */
const issueToken = async (event: APIGatewayProxyEventV2) => {
  const usedBasic = /^Basic\s/i.test(event.headers.authorization ?? '');
  try {
    const form = tokenRequestForm(event);
    const grantType = form.get('grant_type');
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Only client_credentials is supported');
    }
    const { clientId, clientSecret } = clientCredentialsOf(form, event.headers.authorization);
    const token = await issueClientToken(clientId, clientSecret, form.get('scope') ?? undefined);
    countMetric('TokensIssued');
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
    if (!(error instanceof OAuthError)) throw error;
    countMetric('TokensRefused');
    return oauthError(error, usedBasic);
  }
};

/** OAuth 2.0 token endpoint, OpenID discovery and JWKS at the API root. */
export const handler = groupHandler(oauthRoutes, {
  issueToken: (_input, { event }) => issueToken(event),

  openIdConfiguration: () => {
    return {
      raw: jsonResponse(200, {
        issuer: config().publicOrigin,
        token_endpoint: routeUrl(oauthRoutes.issueToken, {}),
        jwks_uri: routeUrl(oauthRoutes.jwks, {}),
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
