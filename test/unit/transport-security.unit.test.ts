import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as openApi } from '../../functions/openapi.js';
import { handler as users } from '../../functions/users.js';
import { reloadConfig } from '../../shared/config.js';
import { STRICT_TRANSPORT_SECURITY } from '../../shared/http/middleware/request-envelope.js';

const request = (routeKey: string, headers: Record<string, string> = {}) =>
  ({
    version: '2.0',
    routeKey,
    rawPath: routeKey.split(' ')[1],
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-1',
      timeEpoch: Date.now(),
      http: { method: routeKey.split(' ')[0], path: routeKey.split(' ')[1], sourceIp: '198.51.100.7' },
    },
  }) as unknown as APIGatewayProxyEventV2;

type Answer = { statusCode: number; headers?: Record<string, string> };
const answers = async () => [
  (await openApi(request('GET /idp/openapi.json'), {} as Context)) as Answer,
  // A refusal too: the error path adds it like the success path.
  (await users(
    request('GET /idp/me/ui-permissions', { authorization: 'Bearer x.y.z' }),
    {} as Context,
  )) as Answer,
];

const withIssuer = (issuer: string) => {
  process.env.IDP_ISSUER = issuer;
  reloadConfig();
};
afterEach(() => withIssuer('http://localhost'));

describe('HTTP Strict Transport Security (RFC 6797)', () => {
  it('is sent on every answer, success or refusal, of an HTTPS origin', async () => {
    withIssuer('https://id.example.com');
    const [document, refusal] = await answers();
    expect(document?.statusCode).toBe(200);
    expect(refusal?.statusCode).toBe(401);
    for (const answer of [document, refusal])
      expect(answer?.headers?.['strict-transport-security']).toBe(STRICT_TRANSPORT_SECURITY);
  });

  it('is not sent by a plain HTTP origin (npm start), where browsers ignore it', async () => {
    withIssuer('http://localhost');
    for (const answer of await answers())
      expect(answer.headers?.['strict-transport-security']).toBeUndefined();
  });
});
