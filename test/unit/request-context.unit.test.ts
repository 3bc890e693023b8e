import type { APIGatewayProxyEventV2WithJWTAuthorizer, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/users.js';

const unsignedToken = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;

const event = (authorizerJti: string, token: string) =>
  ({
    version: '2.0',
    routeKey: 'GET /idp/me/ui-permissions',
    rawPath: '/idp/me/ui-permissions',
    rawQueryString: '',
    headers: { authorization: `Bearer ${token}` },
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      timeEpoch: Date.now(),
      http: { method: 'GET', path: '/idp/me/ui-permissions' },
      authorizer: { jwt: { claims: { jti: authorizerJti }, scopes: [] } },
    },
  }) as unknown as APIGatewayProxyEventV2WithJWTAuthorizer;

describe('request context from the authorizer', () => {
  it('refuses a token other than the one the authorizer verified', async () => {
    const token = unsignedToken({ jti: 'forged', sub: 'x', org: 'y' });
    const response = (await handler(event('verified-jti', token), {} as Context)) as {
      statusCode: number;
      body: string;
    };
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ status: 401, requestId: 'req-1' });
  });
});
