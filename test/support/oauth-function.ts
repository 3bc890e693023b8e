import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ROUTES } from '../../shared/api/routes.js';
import { groupTableGrant } from '../../shared/api/table-requests.js';
import { withTableGrant } from '../../shared/store/dynamo.js';

/**
 * The oauth function's handler (functions/oauth.ts), imported at a test's first request, once its
 * database is set: the function reads its configuration as it loads.
 */
const oauthHandler = () => import('../../functions/oauth.js').then((loaded) => loaded.handler);

/** Where in-process requests come from, as API Gateway would tell the function. */
export const OAUTH_CALLER = { sourceIp: '203.0.113.9', userAgent: 'app/1.0', requestId: 'token-request' };

/** As deployed, and as the local gateway runs it: the oauth function writes only what its role allows. */
const OAUTH_GRANT = { functionName: 'idp-oauth', ...groupTableGrant('oauth', ROUTES) };

/** A form POST to `path` handed to the oauth function in process, as API Gateway would. */
export const postOAuthForm = async (
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<APIGatewayProxyStructuredResultV2> =>
  (await withTableGrant(OAUTH_GRANT, async () =>
    (
      await oauthHandler()
    )(
      {
        version: '2.0',
        routeKey: `POST ${path}`,
        rawPath: path,
        rawQueryString: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form).toString(),
        isBase64Encoded: false,
        requestContext: {
          requestId: OAUTH_CALLER.requestId,
          timeEpoch: Date.now(),
          http: { method: 'POST', path, sourceIp: OAUTH_CALLER.sourceIp, userAgent: OAUTH_CALLER.userAgent },
        },
      } as unknown as APIGatewayProxyEventV2,
      {} as Context,
    ),
  )) as APIGatewayProxyStructuredResultV2;
