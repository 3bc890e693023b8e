import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwtVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import type {
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import type { EndpointGroup, RouteDefinition } from '../../shared/api/route-definition.js';
import { routeKey } from '../../shared/api/route-definition.js';
import { ROUTES } from '../../shared/api/routes.js';

/**
 * A local stand-in for API Gateway HTTP API: it matches the route table's routes, runs the JWT
 * authorizer step (aws-jwt-verify against the service's own discovery document and JWKS), builds
 * payload format 2.0 events with the claims where API Gateway puts them, and invokes the same
 * function handlers in process. Gateway-produced answers (401, 404, 413, 500) use API Gateway's
 * own `{"message": ...}` bodies, because that is what a deployed client receives.
 */

type LambdaHandler = (
  event: APIGatewayProxyEventV2WithJWTAuthorizer,
  context: Context,
) => Promise<APIGatewayProxyResultV2>;

const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  parameterNames: string[];
}

/** API Gateway prefers the most specific route: fewer path variables first. */
const compileRoutes = (): CompiledRoute[] =>
  ROUTES.map((route) => {
    const parameterNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string);
    const pattern = new RegExp(
      `^${route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '([^/]+)')}$`,
    );
    return { route, pattern, parameterNames };
  }).sort((a, b) => a.parameterNames.length - b.parameterNames.length);

/** API Gateway passes text bodies as they are and base64-encodes everything else. */
const isTextContent = (contentType: string | undefined): boolean =>
  !contentType ||
  /^(text\/|application\/(json|.+\+json|x-www-form-urlencoded|xml|javascript))/i.test(contentType);

/** API Gateway hands non-string claims to the function flattened into strings. */
const flattenClaim = (value: unknown): string | number | boolean => {
  if (Array.isArray(value)) return `[${value.map(flattenClaim).join(' ')}]`;
  if (value !== null && typeof value === 'object') {
    return `map[${Object.entries(value)
      .map(([key, inner]) => `${key}:${flattenClaim(inner)}`)
      .join(' ')}]`;
  }
  return String(value);
};

const gatewayRequestId = (): string => randomBytes(10).toString('base64');

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

const lambdaContext = (group: EndpointGroup): Context => {
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
  audience: string;
}

export interface RunningApiGateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export const startApiGateway = async (options: ApiGatewayOptions): Promise<RunningApiGateway> => {
  const routes = compileRoutes();
  const handlers = new Map<EndpointGroup, Promise<LambdaHandler>>();
  const handlerOf = (group: EndpointGroup): Promise<LambdaHandler> => {
    let handler = handlers.get(group);
    if (!handler) {
      handler = import(`../../functions/${group}.ts`).then((module) => module.handler as LambdaHandler);
      handlers.set(group, handler);
    }
    return handler;
  };

  // Like API Gateway, find the JWKS through the issuer's discovery document, over HTTP here.
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
        { issuer, audience: options.audience, jwksUri: discovery.jwks_uri },
        { jwksCache: new SimpleJwksCache({ fetcher: httpFetcher }) },
      );
    })();
    verifier.catch(() => {
      verifier = undefined;
    });
    return verifier;
  };

  const send = (
    response: ServerResponse,
    status: number,
    body: string | Buffer,
    headers: Record<string, string | number | boolean> = {},
  ) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(body);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const requestId = gatewayRequestId();
    response.setHeader('apigw-requestid', requestId);
    const url = new URL(request.url ?? '/', 'http://gateway.local');
    const method = (request.method ?? 'GET').toUpperCase();
    const rawPath = url.pathname;
    const match = routes
      .map((candidate) => ({ candidate, groups: candidate.pattern.exec(rawPath) }))
      .find(({ candidate, groups }) => groups && candidate.route.method === method);
    if (!match?.groups) return send(response, 404, JSON.stringify({ message: 'Not Found' }));
    const { route, parameterNames } = match.candidate;

    const body = await readBody(request);
    if (body === 'too-large')
      return send(response, 413, JSON.stringify({ message: 'Request Entity Too Large' }));

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
    }

    let authorizer: APIGatewayProxyEventV2WithJWTAuthorizer['requestContext']['authorizer'] | undefined;
    if (route.kind === 'management') {
      const token = headers.authorization?.replace(/^Bearer\s+/i, '');
      let claims: JwtPayload | undefined;
      let problem = 'the token is missing';
      if (token) {
        try {
          claims = await (await verifierOf()).verify(token);
        } catch (error) {
          problem = (error as Error).message.replace(/"/g, "'");
        }
      }
      if (!claims) {
        return send(response, 401, JSON.stringify({ message: 'Unauthorized' }), {
          'www-authenticate': `Bearer scope="" error="invalid_token" error_description="${problem}"`,
        });
      }
      const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
      authorizer = {
        principalId: '',
        integrationLatency: 0,
        jwt: {
          claims: Object.fromEntries(
            Object.entries(claims).map(([name, value]) => [name, flattenClaim(value)]),
          ),
          scopes,
        },
      };
    }

    const query = url.searchParams;
    const queryStringParameters: Record<string, string> = {};
    for (const name of new Set(query.keys())) queryStringParameters[name] = query.getAll(name).join(',');
    const pathParameters = Object.fromEntries(
      parameterNames.map((name, index) => [name, decodeURIComponent(match.groups?.[index + 1] ?? '')]),
    );
    const contentType = headers['content-type'];
    const hasBody = body.length > 0;
    const now = new Date();
    const event: APIGatewayProxyEventV2WithJWTAuthorizer = {
      version: '2.0',
      routeKey: routeKey(route),
      rawPath,
      rawQueryString: url.search.slice(1),
      ...(headers.cookie ? { cookies: headers.cookie.split(/;\s*/) } : {}),
      headers,
      ...(query.size > 0 ? { queryStringParameters } : {}),
      ...(parameterNames.length > 0 ? { pathParameters } : {}),
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: headers.host ?? 'localhost',
        domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
        http: {
          method,
          path: rawPath,
          protocol: `HTTP/${request.httpVersion}`,
          sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
          userAgent: headers['user-agent'] ?? '',
        },
        requestId,
        routeKey: routeKey(route),
        stage: '$default',
        time: now.toISOString(),
        timeEpoch: now.getTime(),
        ...(authorizer ? { authorizer } : {}),
      } as APIGatewayProxyEventV2WithJWTAuthorizer['requestContext'],
      ...(hasBody
        ? isTextContent(contentType)
          ? { body: body.toString('utf8'), isBase64Encoded: false }
          : { body: body.toString('base64'), isBase64Encoded: true }
        : { isBase64Encoded: false }),
    };

    let result: APIGatewayProxyResultV2;
    try {
      result = await (await handlerOf(route.group))(event, lambdaContext(route.group));
    } catch (error) {
      console.error('function failed', error);
      return send(response, 500, JSON.stringify({ message: 'Internal Server Error' }));
    }
    if (typeof result === 'string' || result === undefined || result === null) {
      return send(response, 200, typeof result === 'string' ? result : '');
    }
    const structured = result as APIGatewayProxyStructuredResultV2;
    const payload = structured.isBase64Encoded
      ? Buffer.from(structured.body ?? '', 'base64')
      : Buffer.from(structured.body ?? '');
    response.writeHead(structured.statusCode ?? 200, {
      ...(payload.length > 0 ? { 'content-type': 'application/json' } : {}),
      ...Object.fromEntries(
        Object.entries(structured.headers ?? {}).map(([name, value]) => [name, String(value)]),
      ),
      ...(structured.cookies ? { 'set-cookie': structured.cookies } : {}),
    });
    response.end(payload);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      console.error('gateway failure', error);
      if (!response.headersSent) send(response, 500, JSON.stringify({ message: 'Internal Server Error' }));
      else response.end();
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
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
