import type {
  APIGatewayEventRequestContextJWTAuthorizer,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

/**
 * Payload format 2.0 in both directions, as pure functions: the event API Gateway HTTP APIs hand
 * a Lambda function, and the HTTP response they make of its result.
 */

export interface GatewayRequest {
  method: string;
  rawPath: string;
  rawQueryString: string;
  /** Header names as received; repeated headers as arrays (Node's `IncomingMessage.headers`). */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp: string;
  protocol: string;
}

export interface MatchedRoute {
  routeKey: string;
  pathParameters: Record<string, string>;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text when it is text (a textual content type, valid UTF-8); otherwise undefined. */
const textOf = (body: Buffer, contentType: string | undefined): string | undefined => {
  const textual =
    !contentType ||
    /^(text\/|application\/(json|.+\+json|x-www-form-urlencoded|xml|javascript))/i.test(contentType);
  if (!textual) return undefined;
  try {
    return strictUtf8.decode(body);
  } catch {
    return undefined;
  }
};

/** Lower-case names; repeated headers joined with commas; cookies moved to their own field. */
const normalizeHeaders = (raw: GatewayRequest['headers']) => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookies = headers.cookie?.split(/;\s*/).filter(Boolean);
  delete headers.cookie;
  return { headers, cookies };
};

/** Repeated query parameters are joined with commas; values arrive decoded (`+` is a space). */
const queryParameters = (rawQueryString: string): Record<string, string> | undefined => {
  const query = new URLSearchParams(rawQueryString);
  if (query.size === 0) return undefined;
  return Object.fromEntries([...new Set(query.keys())].map((name) => [name, query.getAll(name).join(',')]));
};

export const buildEvent = (
  request: GatewayRequest,
  route: MatchedRoute,
  context: {
    requestId: string;
    now: Date;
    authorizer?: APIGatewayEventRequestContextJWTAuthorizer;
  },
): APIGatewayProxyEventV2WithJWTAuthorizer => {
  const { headers, cookies } = normalizeHeaders(request.headers);
  const queryStringParameters = queryParameters(request.rawQueryString);
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: request.rawPath,
    rawQueryString: request.rawQueryString,
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    ...(Object.keys(route.pathParameters).length > 0 ? { pathParameters: route.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: request.method,
        path: request.rawPath,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: context.requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: context.now.toISOString(),
      timeEpoch: context.now.getTime(),
      ...(context.authorizer ? { authorizer: context.authorizer } : {}),
    } as APIGatewayProxyEventV2WithJWTAuthorizer['requestContext'],
    ...bodyOf(request.body, headers['content-type']),
  };
};

/** API Gateway passes text bodies as they are and base64-encodes everything else. */
const bodyOf = (body: Buffer, contentType: string | undefined) => {
  if (body.length === 0) return { isBase64Encoded: false };
  const text = textOf(body, contentType);
  return text === undefined
    ? { body: body.toString('base64'), isBase64Encoded: true }
    : { body: text, isBase64Encoded: false };
};

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * A function's result as the HTTP response: a structured result as it says; anything else (a
 * string, an object without `statusCode`) is a 200 JSON body, as API Gateway infers it.
 */
export const responseOf = (result: APIGatewayProxyResultV2): HttpResponse => {
  const structured =
    result !== null && typeof result === 'object' && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, body: typeof result === 'string' ? result : JSON.stringify(result ?? '') };
  const body = structured.isBase64Encoded
    ? Buffer.from(structured.body ?? '', 'base64')
    : Buffer.from(structured.body ?? '');
  return {
    status: structured.statusCode ?? 200,
    headers: {
      ...(body.length > 0 ? { 'content-type': 'application/json' } : {}),
      ...Object.fromEntries(
        Object.entries(structured.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
      ),
      ...(structured.cookies && structured.cookies.length > 0 ? { 'set-cookie': structured.cookies } : {}),
    },
    body,
  };
};

/** An answer API Gateway makes itself (`{"message": ...}`), never the function. */
export const gatewayAnswer = (status: number, message: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(JSON.stringify({ message })),
});
