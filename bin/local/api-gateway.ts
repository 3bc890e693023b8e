import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type {
  APIGatewayEventRequestContextJWTAuthorizer,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyResultV2,
  Context,
} from 'aws-lambda';
import type { EndpointGroup, RouteDefinition } from '../../shared/api/route-definition.js';
import { routeKey } from '../../shared/api/route-definition.js';
import { ROUTES } from '../../shared/api/routes.js';
import { groupTableGrant } from '../../shared/api/table-requests.js';
import { withTableGrant } from '../../shared/store/dynamo.js';
import { authorizerContext, bearerChallenge } from './gateway/authorizer.js';
import { buildEvent, gatewayAnswer, type HttpResponse, responseOf } from './gateway/payload.js';
import { compileRoutes, parseRequestTarget } from './gateway/routing.js';

/**
 * A local stand-in for API Gateway HTTP API: it matches the route table's routes, runs the JWT
 * authorizer step (aws-jwt-verify against the service's own discovery document and JWKS), builds
 * payload format 2.0 events with the claims where API Gateway puts them, and invokes the same
 * function handlers in process. Gateway-produced answers (400, 401, 404, 413, 500) use API
 * Gateway's own `{"message": ...}` bodies, because that is what a deployed client receives. The
 * rules themselves are pure functions under `gateway/`; this module does the I/O.
 */

type LambdaHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

/** API Gateway HTTP APIs accept payloads up to 10 MB. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

// API Gateway's ids are 10 bytes in base64. Only uniqueness matters here: a random prefix per
// process and a sequence, as randomBytes for every request cost 3 % of a token request's CPU.
const REQUEST_ID_PREFIX = randomBytes(6);
let requestSequence = 0;
const gatewayRequestId = (): string => {
  const id = Buffer.allocUnsafe(10);
  REQUEST_ID_PREFIX.copy(id);
  requestSequence = (requestSequence + 1) >>> 0;
  id.writeUInt32BE(requestSequence, 6);
  return id.toString('base64');
};

const readBody = (request: IncomingMessage): Promise<Buffer | 'too-large'> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > MAX_PAYLOAD_BYTES ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });

/** A fresh context per invocation, as Lambda gives one; nothing in it is shared between requests. */
export const lambdaContext = (group: EndpointGroup): Context => {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `idp-${group}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:idp-${group}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/idp-${group}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, 29_000 - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

export interface ApiGatewayOptions {
  port: number;
  host?: string;
  /** Read when the first token is verified: with port 0 the issuer is known only after listen. */
  issuer: () => string;
  /** Read with the issuer. */
  audience: () => string;
  /** Whether to write API Gateway's access log line for each request (read per request). */
  accessLog?: () => boolean;
  /**
   * The time stamped on each request (`requestContext.timeEpoch`, the second the rate limit counts
   * it in): the machine's, unless a test pins it.
   */
  clock?: () => number;
}

/** What API Gateway's access log says of a request (lib/idp-api.ts has the deployed format). */
interface AccessLogLine {
  requestId: string;
  requestTime: number;
  sourceIp?: string;
  routeKey?: string;
  path?: string;
  status?: number;
  responseLength?: number;
  responseLatency?: number;
  org?: string;
  principal?: string;
}

export interface RunningApiGateway {
  url: string;
  server: Server;
  /** From now on requests reach the functions; until then every request is answered 503. */
  ready(): void;
  close(): Promise<void>;
}

/**
 * Until the service is ready (its table, seed data and admin client in place), the port answers
 * 503 with `Retry-After`, so that a script that waits for the port meets "not yet", not refusals
 * that are only true for a few seconds (a 401 for the admin client the bootstrap has not created).
 */
export const NOT_READY = gatewayAnswer(503, 'Service Unavailable', { 'retry-after': '1' });

/** The JWT authorizer: like API Gateway, it finds the JWKS through the issuer's discovery document. */
const jwtAuthorizer = (options: ApiGatewayOptions) => {
  const httpFetcher = {
    fetch: async (uri: string) => {
      const response = await fetch(uri);
      if (!response.ok) throw new Error(`JWKS fetch failed: ${response.status}`);
      return response.arrayBuffer();
    },
  };
  let verifier: Promise<{ verify(token: string): Promise<JwtPayload> }> | undefined;
  const verifierOf = () => {
    verifier ??= (async () => {
      const issuer = options.issuer();
      const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
        jwks_uri: string;
      };
      return JwtVerifier.create(
        { issuer, audience: options.audience(), jwksUri: discovery.jwks_uri },
        { jwksCache: new SimpleJwksCache({ fetcher: httpFetcher }) },
      );
    })();
    verifier.catch(() => {
      verifier = undefined;
    });
    return verifier;
  };
  return async (
    authorization: string | undefined,
  ): Promise<APIGatewayEventRequestContextJWTAuthorizer | HttpResponse> => {
    const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
    let claims: JwtPayload | undefined;
    let failure: unknown;
    if (token) {
      try {
        claims = await (await verifierOf()).verify(token);
      } catch (error) {
        failure = error;
      }
    }
    if (!claims) {
      return gatewayAnswer(401, 'Unauthorized', { 'www-authenticate': bearerChallenge(token, failure) });
    }
    return authorizerContext(claims);
  };
};

export const startApiGateway = async (options: ApiGatewayOptions): Promise<RunningApiGateway> => {
  const routes = compileRoutes<RouteDefinition>(ROUTES);
  const authorize = jwtAuthorizer(options);
  const handlers = new Map<EndpointGroup, Promise<LambdaHandler>>();
  const grants = new Map<EndpointGroup, ReturnType<typeof groupTableGrant>>();
  const grantOf = (group: EndpointGroup) => {
    const grant = grants.get(group) ?? groupTableGrant(group, ROUTES);
    grants.set(group, grant);
    return grant;
  };
  const handlerOf = (group: EndpointGroup): Promise<LambdaHandler> => {
    let handler = handlers.get(group);
    if (!handler) {
      handler = import(`../../functions/${group}.ts`).then((module) => module.handler as LambdaHandler);
      handlers.set(group, handler);
    }
    return handler;
  };

  let isReady = false;
  const answer = async (request: IncomingMessage, line: AccessLogLine): Promise<HttpResponse> => {
    const { requestId } = line;
    if (!isReady) return NOT_READY;
    const target = parseRequestTarget(request.url ?? '/');
    if (!target) return gatewayAnswer(400, 'Bad Request');
    const method = (request.method ?? 'GET').toUpperCase();
    line.path = target.rawPath;
    const match = routes.match(method, target.rawPath);
    if (!match) return gatewayAnswer(404, 'Not Found');
    line.routeKey = routeKey(match.route);
    const body = await readBody(request);
    if (body === 'too-large') return gatewayAnswer(413, 'Request Entity Too Large');

    let authorizer: APIGatewayEventRequestContextJWTAuthorizer | undefined;
    if (match.route.kind === 'management') {
      const outcome = await authorize(request.headers.authorization);
      if ('status' in outcome) return outcome;
      authorizer = outcome;
      line.org = String(outcome.jwt.claims.org);
      line.principal = String(outcome.jwt.claims.sub);
    }
    const event = buildEvent(
      {
        method,
        ...target,
        headers: request.headers,
        body,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        protocol: `HTTP/${request.httpVersion}`,
      },
      { routeKey: routeKey(match.route), pathParameters: match.pathParameters },
      { requestId, now: new Date(options.clock?.() ?? Date.now()), ...(authorizer ? { authorizer } : {}) },
    );
    try {
      const { group } = match.route;
      const handler = await handlerOf(group);
      // As deployed, the function writes only what its role's IAM statements allow.
      return responseOf(
        await withTableGrant({ functionName: `idp-${group}`, ...grantOf(group) }, () =>
          handler(event, lambdaContext(group)),
        ),
      );
    } catch (error) {
      console.error('function failed', error);
      return gatewayAnswer(500, 'Internal Server Error');
    }
  };

  const server = createServer((request, response: ServerResponse) => {
    const requestId = gatewayRequestId();
    const line: AccessLogLine = {
      requestId,
      requestTime: Date.now(),
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    };
    answer(request, line)
      .catch((error): HttpResponse => {
        console.error('gateway failure', error);
        return gatewayAnswer(500, 'Internal Server Error');
      })
      .then(({ status, headers, body }) => {
        if (response.headersSent) return response.end();
        response.writeHead(status, { 'apigw-requestid': requestId, ...headers });
        response.end(body);
        if (options.accessLog?.()) {
          const finished = {
            ...line,
            status,
            responseLength: body.length,
            responseLatency: Date.now() - line.requestTime,
          };
          process.stdout.write(`${JSON.stringify(finished)}\n`);
        }
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    server,
    ready: () => {
      isReady = true;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
