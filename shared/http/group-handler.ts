import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import {
  type RouteDefinition,
  type RouteInput,
  type RouteResult,
  routeKey,
} from '../api/route-definition.js';
import { middlewareOf } from '../api/route-middleware.js';
import { withAuditScope } from '../audit/scope.js';
import type { Principal } from '../auth/principal.js';
import { config } from '../config.js';
import { metrics } from '../observability/metrics.js';
import { actorOfRequest } from './audit-actor.js';
import type { RegisteredOrigin } from './cors.js';
import { errorBody } from './error-mapping.js';
import { ApiError } from './errors.js';
import { logger } from './logger.js';
import type { admission } from './middleware/admission.js';
import { authorize } from './middleware/authorize.js';
import {
  type ErrorPage,
  type ErrorRenderer,
  errorResponse,
  jsonResponse,
  pageErrors,
} from './middleware/error-response.js';
import type { idempotency } from './middleware/idempotency.js';
import { jsonBody } from './middleware/json-body.js';
import type { multipartFile } from './middleware/multipart-file.js';
import { requestContext } from './middleware/request-context.js';
import { requestEnvelope } from './middleware/request-envelope.js';
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

type RouteOf<T> = T[keyof T];
type Authenticated<R> = R extends { kind: 'management' } ? R : never;
type IsPage<R> = R extends { kind: 'page' } ? R : never;
type IsScim<R> = R extends { kind: 'scim' } ? R : never;

/** What SCIM routes use (shared/scim/): their admission and their error shape. */
export interface ScimChain {
  admission: (route: RouteDefinition) => middy.MiddlewareObj<APIGatewayProxyEventV2>;
  errors: ErrorRenderer;
}
/** Routes browser applications call cross-origin with a token or client credentials. */
type CrossOrigin<R> = R extends { kind: 'management' | 'oauth' } ? R : never;
type HonoursIdempotencyKey<R> = R extends { kind: 'management'; method: infer M }
  ? M extends 'GET'
    ? never
    : R extends { idempotentByNature: true } | { bodyIsSecret: true }
      ? never
      : R
  : never;
type TakesUpload<R> = R extends { request: { multipartFile: object } } ? R : never;
type SecretRoutes<T> = {
  [K in keyof T as T[K] extends { response: { secretField: string } } ? K : never]: SecretRereader;
};

/**
 * What only some groups' routes use, passed in by those groups' functions, so that the others'
 * bundles do not carry it: a group with management routes must pass the admission middleware
 * (principal status and rate limit, with their store modules), one whose routes honour
 * `Idempotency-Key` the idempotency middleware, one that takes uploads the multipart parser, one
 * whose responses carry secrets their rereaders. The compiler holds each function to what its
 * routes need.
 */
export type GroupOptions<T extends Record<string, RouteDefinition>> = ([Authenticated<RouteOf<T>>] extends [
  never,
]
  ? { admission?: never }
  : { admission: typeof admission }) &
  ([HonoursIdempotencyKey<RouteOf<T>>] extends [never]
    ? { idempotency?: never }
    : { idempotency: typeof idempotency }) &
  ([TakesUpload<RouteOf<T>>] extends [never]
    ? { multipartFile?: never }
    : { multipartFile: typeof multipartFile }) &
  (keyof SecretRoutes<T> extends never ? { secretRereaders?: never } : { secretRereaders: SecretRoutes<T> }) &
  ([IsPage<RouteOf<T>>] extends [never] ? { errorPage?: never } : { errorPage: ErrorPage }) &
  ([IsScim<RouteOf<T>>] extends [never] ? { scim?: never } : { scim: ScimChain }) &
  ([CrossOrigin<RouteOf<T>>] extends [never]
    ? { registeredOrigin?: never }
    : { registeredOrigin: RegisteredOrigin });

/** Shapes the handler's result through the route's response schema: closed, so nothing extra leaks. */
const serialize = (route: RouteDefinition, result: RouteResult<RouteDefinition>): APIGatewayProxyResultV2 => {
  if (result.raw) return result.raw;
  if (!route.response.body) {
    // No body, but a cache must not keep the answer either (a 204 says what was done).
    return {
      statusCode: route.response.status,
      headers: { 'cache-control': 'no-store', ...result.headers },
      body: '',
    };
  }
  const shaped = route.response.body.safeParse(result.body);
  // A response that breaks its own schema is a server bug, never the caller's fault.
  if (!shaped.success)
    throw new Error(`${route.operationId} response does not match its schema: ${shaped.error.message}`);
  // RFC 7644 section 3.1: SCIM answers in its own media type.
  const mediaType: Record<string, string> =
    route.kind === 'scim' ? { 'content-type': 'application/scim+json' } : {};
  return jsonResponse(route.response.status, shaped.data, { ...mediaType, ...result.headers });
};

/** The middleware chain of one route, as `middlewareOf` decides it, in the order ARCHITECTURE.md describes. */
const routeChain = (
  route: RouteDefinition,
  handle: RouteHandler<RouteDefinition>,
  options: {
    admission?: typeof admission;
    idempotency?: typeof idempotency;
    multipartFile?: typeof multipartFile;
    rereadSecret?: SecretRereader;
    errorPage?: ErrorPage;
    scim?: ScimChain;
  },
) => {
  const uses = middlewareOf(route);
  const renderErrors =
    route.kind === 'page'
      ? pageErrors(required(options.errorPage, 'errorPage', route))
      : route.kind === 'scim'
        ? required(options.scim, 'scim', route).errors
        : undefined;
  // API Gateway hands payload format 2.0 headers to the function with lower-case names already.
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>()
    .use(errorResponse(renderErrors))
    .use(requestContext(route) as middy.MiddlewareObj);
  if (uses.authenticated)
    chain.use(required(options.admission, 'admission', route)(route)).use(authorize(route));
  if (uses.provisioning)
    chain.use(required(options.scim, 'scim', route).admission(route) as middy.MiddlewareObj);
  if (uses.jsonBody) chain.use(jsonBody() as middy.MiddlewareObj);
  if (uses.multipartFile)
    chain.use(required(options.multipartFile, 'multipartFile', route)(route) as middy.MiddlewareObj);
  if (uses.validation) chain.use(validateRequest(route) as middy.MiddlewareObj);
  if (uses.idempotency) {
    const { secretField } = route.response;
    const { rereadSecret } = options;
    if (secretField && !rereadSecret) throw new Error(`No secret rereader for ${route.operationId}`);
    chain.use(
      required(
        options.idempotency,
        'idempotency',
        route,
      )(
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
    const result = Promise.resolve(
      handle(input as RouteInput<RouteDefinition>, {
        principal: state.principal as Principal,
        requestId: state.requestId,
        receivedAt: state.receivedAt,
        event,
        ...(state.upload ? { upload: state.upload } : {}),
      }),
    );
    // A read ran beside its admission: nothing is answered before admission is granted.
    if (state.admission) {
      result.catch(() => {});
      await state.admission;
    }
    return serialize(route, await result);
  });
};

/** A middleware the group's function must pass for this route (the compiler already insists). */
const required = <M>(middleware: M | undefined, name: string, route: RouteDefinition): M => {
  if (!middleware)
    throw new Error(`${route.operationId} needs the ${name} middleware passed to groupHandler`);
  return middleware;
};

/**
 * The Lambda handler of one endpoint group: API Gateway names the route it matched
 * (`event.routeKey`), which selects the route's chain. The configuration is read as the function
 * starts, so a missing setting fails the cold start naming it. API Gateway only forwards the
 * group's own routes, so the not-found branch is a safety net.
 */
export const groupHandler = <T extends Record<string, RouteDefinition>>(
  routes: T,
  handlers: GroupHandlers<T>,
  // Required exactly when the group's routes need something passed in.
  // biome-ignore lint/complexity/noBannedTypes: `{} extends X` is the test for "X has no required keys".
  ...[options]: {} extends GroupOptions<T> ? [GroupOptions<T>?] : [GroupOptions<T>]
) => {
  config();
  const given = (options ?? {}) as {
    admission?: typeof admission;
    idempotency?: typeof idempotency;
    multipartFile?: typeof multipartFile;
    secretRereaders?: Record<string, SecretRereader>;
    errorPage?: ErrorPage;
    scim?: ScimChain;
    registeredOrigin?: RegisteredOrigin;
  };
  // A route's chain is built when the instance first serves it: most instances serve a few routes.
  const routesByKey = new Map(Object.values(routes).map((route) => [routeKey(route), route]));
  const chains = new Map<string, ReturnType<typeof routeChain>>();
  const chainOf = (key: string) => {
    const route = routesByKey.get(key);
    if (!route) return undefined;
    let chain = chains.get(key);
    if (!chain) {
      chain = routeChain(route, handlers[route.operationId as keyof T] as RouteHandler<RouteDefinition>, {
        ...given,
        ...(given.secretRereaders?.[route.operationId]
          ? { rereadSecret: given.secretRereaders[route.operationId] }
          : {}),
      });
      chains.set(key, chain);
    }
    return chain;
  };
  const envelope = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2>().use(
    injectLambdaContext(logger, { resetKeys: true }),
  );
  // Off locally: `npm start` runs requests side by side in one process, which one store of
  // metrics would mix and a disabled one would keep forever.
  if (!metrics().off) envelope.use(logMetrics(metrics()));
  return envelope
    .use(requestEnvelope((key) => routesByKey.get(key), given.registeredOrigin))
    .handler(async (event, context) => {
      const chain = chainOf(event.routeKey);
      if (!chain)
        return jsonResponse(404, errorBody(new ApiError(404, `No route ${event.routeKey}`), 'unknown'));
      return withAuditScope({ actor: actorOfRequest(event), requestId: event.requestContext.requestId }, () =>
        chain(event, context),
      );
    });
};
