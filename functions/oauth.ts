import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routeUrl } from '../shared/api/route-url.js';
import { oauthRoutes } from '../shared/api/routes/oauth.js';
import { signinRoutes } from '../shared/api/routes/signin.js';
import {
  authenticateApplication,
  authenticateClient,
  issueClientToken,
  refuseOtherMethod,
  refuseOutsideAddresses,
} from '../shared/auth/client-credentials.js';
import { introspect } from '../shared/auth/introspection.js';
import { countIssuedToken, recordEndedMinutes } from '../shared/auth/issued-token-records.js';
import { type KnownClient, OAuthError } from '../shared/auth/oauth-error.js';
import { verifiedOwnToken } from '../shared/auth/own-tokens.js';
import { PUSHED_REQUEST_LIMIT, pushedRequestAnswer } from '../shared/auth/pushed-authorization.js';
import { exchangeAuthorizationCode, refreshSignIn } from '../shared/auth/sign-in-tokens.js';
import { publicJwks } from '../shared/auth/signing-keys.js';
import {
  clientCredentialsOf,
  namedClientId,
  presentedClient,
  proofOf,
  tokenRequestForm,
} from '../shared/auth/token-request.js';
import { SUPPORTED_SCOPES } from '../shared/auth/token-service.js';
import { userInfo } from '../shared/auth/user-info.js';
import { config } from '../shared/config.js';
import { ID_TOKEN_SIGNING_ALGORITHMS, TOKEN_ENDPOINT_AUTH_METHODS } from '../shared/domain/applications.js';
import { PROMPT_VALUES, SIGN_IN_SCOPES } from '../shared/domain/authorization.js';
import { CLIENT_ASSERTION_ALGORITHMS } from '../shared/domain/client-keys.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { logger } from '../shared/http/logger.js';
import { jsonResponse } from '../shared/http/middleware/error-response.js';
import { countMetric } from '../shared/observability/metrics.js';
import { asOneLine } from '../shared/schemas/text.js';
import { getApiClient } from '../shared/store/api-client-repository.js';
import { writeAuditRecord } from '../shared/store/audit-records.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { refreshFamilyOf, revokeRefreshFamily } from '../shared/store/sign-in-state.js';

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** Discovery and the public key set: the same for everyone, and nothing private. */
const PUBLIC_FOR_FIVE_MINUTES = { 'cache-control': 'public, max-age=300' };

/**
 * A refused token request of a client that exists, recorded in its organization by the client
 * (the scope keeps the address), once the answer is decided. Best effort: a failure to record is
 * logged, never answered. Never on the success path.
 */
const recordTokenRefusal = async (error: OAuthError, client: KnownClient) => {
  try {
    await writeAuditRecord({
      organizationId: client.organizationId,
      action: 'token.refused',
      outcome: 'failure',
      reason: asOneLine(`${error.error}: ${error.description}`).slice(0, 300),
      actor: { type: 'client', id: client.id },
      targets: [{ type: 'client', id: client.id }],
    });
  } catch (failure) {
    logger.warn('audit record of a refused token not written', { error: failure as Error });
  }
};

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
 * Answers RFC 6749 error bodies for the OAuth errors a request may cause. `refused`, when given,
 * hears each refusal and the client it knew (the error's, or the one `answer` authenticated).
 */
const answeringOAuthErrors = async (
  event: APIGatewayProxyEventV2,
  answer: (authenticated: (client: KnownClient) => void) => Promise<Record<string, unknown> | undefined>,
  refused?: (error: OAuthError, client: KnownClient) => Promise<void>,
  successStatus: 200 | 201 = 200,
) => {
  const usedBasic = /^Basic\s/i.test(event.headers.authorization ?? '');
  let known: KnownClient | undefined;
  try {
    const body = await answer((client) => {
      known = client;
    });
    return { raw: jsonResponse(successStatus, body ?? {}, NO_STORE) };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    countMetric('TokensRefused');
    const client = error.client ?? known;
    if (refused && client) await refused(error, client);
    return oauthError(error, usedBasic);
  }
};

/**
 * The token endpoint parses its form body itself: it answers RFC 6749 error bodies, not the
 * management API's error shape, and accepts exactly one client authentication method at a time.
 */
const issueToken = async (event: APIGatewayProxyEventV2) => {
  const now = Date.now();
  // The records of minutes that ended (once a minute at most) are written beside this request,
  // and its answer waits for them: Lambda freezes an instance once it answered, and a write left
  // running could land after its hour's digest was written (docs/audit.md, "Token records").
  const recording = recordEndedMinutes(now);
  const answer = await answeringOAuthErrors(
    event,
    async (authenticated) => {
      const form = tokenRequestForm(event);
      const grantType = form.get('grant_type');
      // A grant this endpoint does not take (or none) is refused before any authentication: the
      // client the request names, if it exists, still gets the record of its refusal.
      const refuseGrant = async (error: OAuthError) => {
        const named = namedClientId(form, event.headers.authorization);
        const client = named === undefined ? undefined : await getApiClient(named);
        if (client) authenticated(client);
        throw error;
      };
      if (!grantType) return refuseGrant(new OAuthError(400, 'invalid_request', 'grant_type is required'));
      if (grantType === 'client_credentials') {
        const { clientId, proof } = clientCredentialsOf(form, event.headers.authorization);
        const token = await issueClientToken(
          clientId,
          proof,
          form.get('scope') ?? undefined,
          now,
          event.requestContext.http.sourceIp,
        );
        countMetric('TokensIssued');
        countIssuedToken(token.client, now);
        return {
          access_token: token.accessToken,
          token_type: 'Bearer',
          expires_in: token.expiresIn,
          scope: token.scope,
        };
      }
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
        return refuseGrant(
          new OAuthError(400, 'unsupported_grant_type', `Unsupported grant_type ${grantType}`),
        );
      }
      const client = await authenticateApplication(presentedClient(form, event.headers.authorization));
      authenticated(client);
      const tokens =
        grantType === 'authorization_code'
          ? await exchangeAuthorizationCode(client, form)
          : await refreshSignIn(client, form);
      countMetric('TokensIssued');
      return tokens;
    },
    recordTokenRefusal,
  );
  await recording;
  return answer;
};

/**
 * RFC 7009: the client revokes a refresh token it holds (with its whole sign-in); 200 for anything
 * that is not a token of this service, 400 for another client's.
 */
const revokeToken = (event: APIGatewayProxyEventV2) =>
  answeringOAuthErrors(event, async () => {
    const form = tokenRequestForm(event);
    const client = await authenticateApplication(presentedClient(form, event.headers.authorization));
    const token = form.get('token');
    if (!token) throw new OAuthError(400, 'invalid_request', 'token is required');
    // Access tokens are self-contained JWTs that expire within minutes and are not revoked: a 200
    // would tell the client one was (RFC 7009 2.2.1). Anything else is looked up as a refresh
    // token whatever `token_type_hint` says: RFC 7009 section 2.1 makes the hint an optimisation,
    // and a wrong one must not leave a refresh token alive.
    if (await verifiedOwnToken(token, { typ: 'at+jwt', audience: config().audience }))
      throw new OAuthError(
        400,
        'unsupported_token_type',
        'Access tokens are not revoked: they expire within minutes. Revoke the refresh token to end the sign-in',
      );
    const family = await refreshFamilyOf(token);
    if (!family) return undefined;
    // RFC 7009 2.1: another client's token is refused, not revoked, and the client told so.
    if (family.clientId !== client.id)
      throw new OAuthError(400, 'unauthorized_client', 'The token was not issued to this client');
    await revokeRefreshFamily(family.familyId);
    return undefined;
  });

/**
 * RFC 7662: a client with a secret asks whether a token is active, authenticated as at the token
 * endpoint (an application by its registered method, an API client from its registered
 * addresses); a public application has no secret to prove itself with. Refusals are recorded.
 */
const introspectToken = (event: APIGatewayProxyEventV2) =>
  answeringOAuthErrors(
    event,
    async (authenticated) => {
      const form = tokenRequestForm(event);
      const presented = presentedClient(form, event.headers.authorization);
      const proof = proofOf(presented);
      if (proof === undefined) throw new OAuthError(401, 'invalid_client', 'Client credentials are required');
      const client = await authenticateClient(presented.clientId, proof);
      authenticated(client);
      refuseOtherMethod(client, presented.method);
      refuseOutsideAddresses(client, event.requestContext.http.sourceIp);
      const token = form.get('token');
      if (!token) throw new OAuthError(400, 'invalid_request', 'token is required');
      return introspect(client, token);
    },
    recordTokenRefusal,
  );

/** RFC 9126: an application pushes its authorization request; refusals are recorded. */
const pushAuthorizationRequest = (event: APIGatewayProxyEventV2) =>
  answeringOAuthErrors(
    event,
    async (authenticated) => {
      const form = tokenRequestForm(event, PUSHED_REQUEST_LIMIT);
      const client = await authenticateApplication(presentedClient(form, event.headers.authorization));
      authenticated(client);
      return pushedRequestAnswer(form, client);
    },
    recordTokenRefusal,
    201,
  );

const getUserInfo = async (event: APIGatewayProxyEventV2) => {
  const answer = await userInfo(event.headers.authorization);
  if ('claims' in answer) return { raw: jsonResponse(200, answer.claims, NO_STORE) };
  // RFC 6750 3: the challenge names the error; a request without a token gets no error code, and
  // a token without the scope UserInfo needs is a 403 naming it (3.1).
  if (answer.error === 'insufficient_scope') {
    const challenge = 'Bearer realm="idp", error="insufficient_scope", scope="openid"';
    return { raw: { statusCode: 403, headers: { 'www-authenticate': challenge, ...NO_STORE }, body: '' } };
  }
  const challenge =
    answer.error === 'invalid_request' ? 'Bearer realm="idp"' : 'Bearer realm="idp", error="invalid_token"';
  return {
    raw: { statusCode: 401, headers: { 'www-authenticate': challenge, ...NO_STORE }, body: '' },
  };
};

/** OAuth 2.0 and OpenID Connect endpoints at the API root (the hosted pages are the signin group's). */
export const handler = groupHandler(
  oauthRoutes,
  {
    issueToken: (_input, { event }) => issueToken(event),
    getUserInfo: (_input, { event }) => getUserInfo(event),
    postUserInfo: (_input, { event }) => getUserInfo(event),
    revokeToken: (_input, { event }) => revokeToken(event),
    introspectToken: (_input, { event }) => introspectToken(event),
    pushAuthorizationRequest: (_input, { event }) => pushAuthorizationRequest(event),

    openIdConfiguration: () => ({
      raw: jsonResponse(
        200,
        {
          issuer: config().publicOrigin,
          authorization_endpoint: routeUrl(signinRoutes.authorize, {}),
          token_endpoint: routeUrl(oauthRoutes.issueToken, {}),
          userinfo_endpoint: routeUrl(oauthRoutes.getUserInfo, {}),
          revocation_endpoint: routeUrl(oauthRoutes.revokeToken, {}),
          introspection_endpoint: routeUrl(oauthRoutes.introspectToken, {}),
          pushed_authorization_request_endpoint: routeUrl(oauthRoutes.pushAuthorizationRequest, {}),
          require_pushed_authorization_requests: false,
          end_session_endpoint: routeUrl(signinRoutes.endSession, {}),
          jwks_uri: routeUrl(oauthRoutes.jwks, {}),
          grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          // Their defaults would say otherwise (OpenID Connect Discovery 3): request_uri's is true.
          // Request objects by reference (Core 6.2); a pushed request's request_uri is RFC 9126's.
          request_parameter_supported: false,
          request_uri_parameter_supported: false,
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
          token_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGORITHMS,
          revocation_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
          revocation_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGORITHMS,
          introspection_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS.filter(
            (m) => m !== 'none',
          ),
          introspection_endpoint_auth_signing_alg_values_supported: CLIENT_ASSERTION_ALGORITHMS,
          scopes_supported: [...new Set([...SIGN_IN_SCOPES, ...SUPPORTED_SCOPES])],
          claims_supported: [
            'sub',
            'iss',
            'aud',
            'exp',
            'iat',
            'auth_time',
            'nonce',
            'amr',
            'azp',
            'email',
            'email_verified',
            'name',
            'org',
          ],
          prompt_values_supported: PROMPT_VALUES,
          // Per application (idTokenSignedResponseAlg); OpenID Connect Discovery 3 requires RS256.
          id_token_signing_alg_values_supported: ID_TOKEN_SIGNING_ALGORITHMS,
          subject_types_supported: ['public'],
          authorization_response_iss_parameter_supported: true,
        },
        PUBLIC_FOR_FIVE_MINUTES,
      ),
    }),

    jwks: async () => ({
      raw: jsonResponse(200, await publicJwks(), PUBLIC_FOR_FIVE_MINUTES),
    }),
  },
  { registeredOrigin: isRegisteredOrigin },
);
