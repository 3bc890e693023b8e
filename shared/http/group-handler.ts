import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { RouteDefinition, RouteInput, RouteResult } from '../api/route-definition.js';
import { middlewareOf } from '../api/route-middleware.js';
import type { Principal } from '../auth/principal.js';
import { config } from '../config.js';
import { measureRequest } from '../observability/metrics.js';
import { errorBody } from './error-mapping.js';
import { ApiError } from './errors.js';
import { logger } from './logger.js';
import { authorize } from './middleware/authorize.js';
import { errorResponse, jsonResponse } from './middleware/error-response.js';
import { idempotency } from './middleware/idempotency.js';
import { jsonBody } from './middleware/json-body.js';
import { multipartFile } from './middleware/multipart-file.js';
import { principalStatus } from './middleware/principal-status.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { stateOfContext } from './request-state.js';
import { validateRequest } from './validation.js';

export interface HandlerContext {
  /** Set on every management route (the chain refuses the request without one). */
  principal: Principal;
  requestId: string;
  receivedAt: number;
  event: APIGatewayProxyEventV2;
  /** The uploaded file, on routes that take one. */
  upload?: Uint8Array;
}

export type RouteHandler<R extends RouteDefinition> = (
  input: RouteInput<R>,
  context: HandlerContext,
) => Promise<RouteResult<R>> | RouteResult<R>;

/** The handlers of a group's function: exactly one per route of the group's route file. */
export type GroupHandlers<T extends Record<string, RouteDefinition>> = { [K in keyof T]: RouteHandler<T[K]> };

/**
 * Reads the secret of a recorded response again (see `RouteDefinition.response.secretField`),
 * for every operation of the group whose response carries one.
 */
export type SecretRereader = (
  recordedBody: Record<string, unknown>,
  context: Pick<HandlerContext, 'principal'>,
) => Promise<string>;
export type GroupSecretRereaders<T extends Record<string, RouteDefinition>> = {
  [K in keyof T as T[K]['response'] extends { secretField: string } ? K : never]: SecretRereader;
};

/** Shapes the handler's result through the route's response schema: closed, so nothing extra leaks. */
const serialize = (route: RouteDefinition, result: RouteResult<RouteDefinition>): APIGatewayProxyResultV2 => {
  if (result.raw) return result.raw;
  if (!route.response.body) {
    return { statusCode: route.response.status, headers: result.headers ?? {}, body: '' };
  }
  const shaped = route.response.body.safeParse(result.body);
  // A response that breaks its own schema is a server bug, never the caller's fault.
  if (!shaped.success)
    throw new Error(`${route.operationId} response does not match its schema: ${shaped.error.message}`);
  return jsonResponse(route.response.status, shaped.data, result.headers);
};

/** The middleware chain of one route, as `middlewareOf` decides it, in the order the README describes. */
const routeChain = (
  route: RouteDefinition,
  handle: RouteHandler<RouteDefinition>,
  rereadSecret?: SecretRereader,
) => {
  const uses = middlewareOf(route);
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
    .use(errorResponse())
    .use(httpHeaderNormalizer())
    .use(requestContext(route) as middy.MiddlewareObj);
  if (uses.authenticated) chain.use(principalStatus()).use(rateLimit()).use(authorize(route));
  if (uses.jsonBody) chain.use(jsonBody() as middy.MiddlewareObj);
  if (uses.multipartFile) chain.use(multipartFile(route) as middy.MiddlewareObj);
  if (uses.validation) chain.use(validateRequest(route) as middy.MiddlewareObj);
  if (uses.idempotency) {
    const { secretField } = route.response;
    if (secretField && !rereadSecret) throw new Error(`No secret rereader for ${route.operationId}`);
    chain.use(
      idempotency(
        secretField && rereadSecret
          ? {
              field: secretField,
              reread: (body, request) =>
                rereadSecret(body, { principal: stateOfContext(request.context).principal as Principal }),
            }
          : undefined,
      ),
    );
  }
  return chain.handler(async (event, context) => {
    const state = stateOfContext(context);
    const input = state.input ?? { path: {}, query: {}, body: undefined };
    const result = await handle(input as RouteInput<RouteDefinition>, {
      principal: state.principal as Principal,
      requestId: state.requestId,
      receivedAt: state.receivedAt,
      event,
      ...(state.upload ? { upload: state.upload } : {}),
    });
    return serialize(route, result);
  });
};

const statusOf = (response: APIGatewayProxyResultV2): number =>
  typeof response === 'object' ? (response.statusCode ?? 200) : 200;

/**
 * Writes one access log line and the request's metrics per request, whatever path it took
 * (including idempotent replays).
 */
const withAccessLog =
  (handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyResultV2>) =>
  async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyResultV2> => {
    const started = Date.now();
    const response = await measureRequest(event.routeKey, () => handler(event, context), statusOf);
    const claims = (event.requestContext as { authorizer?: { jwt?: { claims?: Record<string, unknown> } } })
      .authorizer?.jwt?.claims;
    logger.info('request', {
      requestId: event.requestContext.requestId,
      route: event.routeKey,
      status: statusOf(response),
      latencyMs: Date.now() - started,
      organizationId: claims?.org,
      principalId: claims?.sub,
    });
    return response;
  };

/**
 * The Lambda handler of one endpoint group: Middy's router dispatches to each route's chain. The
 * configuration is read as the function starts, so a missing setting fails the cold start naming
 * it. API Gateway only forwards the group's own routes, so the not-found branch is a safety net.
 */
export const groupHandler = <T extends Record<string, RouteDefinition>>(
  routes: T,
  handlers: GroupHandlers<T>,
  ...[secretRereaders]: keyof GroupSecretRereaders<T> extends never ? [] : [GroupSecretRereaders<T>]
) => {
  config();
  const rereaders = (secretRereaders ?? {}) as Record<string, SecretRereader>;
  const router = httpRouterHandler({
    routes: Object.values(routes).map((route) => ({
      method: route.method,
      path: route.path,
      handler: routeChain(
        route,
        handlers[route.operationId as keyof T] as RouteHandler<RouteDefinition>,
        rereaders[route.operationId],
      ),
    })),
    notFoundResponse: ({ method, path }) =>
      jsonResponse(404, errorBody(new ApiError(404, `No route ${method} ${path}`), 'unknown')) as never,
  });
  return withAccessLog(router as never);
};
