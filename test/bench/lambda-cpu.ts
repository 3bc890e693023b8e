import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { lambdaContext } from '../../bin/local/api-gateway.js';
import { authorizerContext } from '../../bin/local/gateway/authorizer.js';
import { buildEvent, type GatewayRequest } from '../../bin/local/gateway/payload.js';
import { startLocalService } from '../../bin/local/service.js';
import { withoutOutput } from './powertools-cost.js';
import { tokenRequest } from './token-endpoint.js';

/**
 * Lambda sizing: the CPU a warm invocation of a function spends, its handler
 * called directly and one invocation at a time with the event API Gateway sends, against DynamoDB
 * Local. Lambda gives a function CPU in proportion to its memory (1,769 MB is one vCPU), so
 * CPU time / share is the least time an invocation takes at a memory size.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<{ statusCode?: number }>;

const request = (
  method: string,
  rawPath: string,
  headers: Record<string, string>,
  body = '',
): GatewayRequest => ({
  method,
  rawPath,
  rawQueryString: '',
  headers: { host: 'localhost', ...headers },
  body: Buffer.from(body),
  sourceIp: '127.0.0.1',
  protocol: 'HTTP/1.1',
});

/** CPU milliseconds per invocation (user + system), over `count` invocations in sequence. */
const cpuPerInvocation = async (invoke: () => Promise<{ statusCode?: number }>, count: number) => {
  // As warm as the Powertools measurement it is compared with (powertools-cost.ts).
  for (let warmup = 0; warmup < count; warmup++) await invoke();
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const { statusCode } = await invoke();
    if (statusCode !== 200) throw new Error(`an invocation answered ${statusCode}`);
  }
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000 / count;
};

export const LAMBDA_VCPU_MB = 1769;
export const MEMORY_SIZES = [256, 512, 1024, 1769];

export const benchLambdaCpu = async (options: { dynamoDbEndpoint: string; invocations: number }) => {
  const service = await startLocalService({
    port: 0,
    dynamoDbEndpoint: options.dynamoDbEndpoint,
    dataDirectory: mkdtempSync(join(tmpdir(), 'idp-lambda-cpu-')),
  });
  try {
    const { updateOrganizationSettings } = await import('../../shared/store/organization-repository.js');
    const { createUser } = await import('../../shared/store/user-repository.js');
    await updateOrganizationSettings(service.organizationId, { rateLimit: { rate: 10_000, burst: 10_000 } });
    const { user } = await createUser({
      organizationId: service.organizationId,
      email: `lambda-cpu-${Date.now()}@example.com`,
      name: 'Sized',
      userType: 'STANDARD',
      createdBy: 'bench',
    });
    const client = {
      tokenUrl: `${service.baseUrl}/oauth2/token`,
      client_id: service.clientId,
      client_secret: service.clientSecret,
    };
    const token = tokenRequest(client);
    const { access_token: accessToken } = (await (await fetch(token.url, token)).json()) as {
      access_token: string;
    };
    const users = (await import('../../functions/users.js')).handler as unknown as Handler;
    const oauth = (await import('../../functions/oauth.js')).handler as unknown as Handler;
    const readEvent = buildEvent(
      request('GET', `/idp/users/${user.id}`, { authorization: `Bearer ${accessToken}` }),
      { routeKey: 'GET /idp/users/{id}', pathParameters: { id: user.id } },
      { requestId: 'bench', now: new Date(), authorizer: authorizerContext(decodeJwt(accessToken)) },
    );
    const tokenEvent = buildEvent(
      request('POST', '/oauth2/token', token.headers, token.body),
      { routeKey: 'POST /oauth2/token', pathParameters: {} },
      { requestId: 'bench', now: new Date() },
    );
    // Their log and metric lines are written, as on Lambda, but not to the bench's output.
    return withoutOutput(async () => ({
      read: await cpuPerInvocation(() => users(readEvent, lambdaContext('users')), options.invocations),
      token: await cpuPerInvocation(() => oauth(tokenEvent, lambdaContext('oauth')), options.invocations),
    }));
  } finally {
    await service.close();
  }
};
