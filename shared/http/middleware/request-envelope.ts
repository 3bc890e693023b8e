import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { RouteDefinition } from '../../api/route-definition.js';
import { config } from '../../config.js';
import { countMetric, dimensionRequest } from '../../observability/metrics.js';
import { corsHeadersFor, type RegisteredOrigin } from '../cors.js';
import { logger } from '../logger.js';

type Request = Parameters<
  NonNullable<MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2>['before']>
>[0];

/** A function that threw has no response: API Gateway answers 500 for it. */
const statusOf = (response: APIGatewayProxyResultV2 | null | undefined): number =>
  response === undefined || response === null
    ? 500
    : typeof response === 'object'
      ? (response.statusCode ?? 200)
      : 200;

const started = new WeakMap<object, number>();

/** A year, this origin and the hosts under it (OWASP's recommended value). */
const noBrowserOrigin: RegisteredOrigin = async () => false;

export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * What every request of a group gets, whatever path it took through its route's chain (replays of
 * an `Idempotency-Key` among them): its metrics dimensioned by route and status class, a DEBUG log
 * line (API Gateway's access log records every request already), the CORS headers of browser
 * applications' calls, and HSTS on an HTTPS origin. It sits inside Powertools'
 * `logMetrics`, so the dimensions are set before the metrics are published.
 */
export const requestEnvelope = (
  routeOfKey: (key: string) => RouteDefinition | undefined,
  registeredOrigin: RegisteredOrigin | undefined,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2> => {
  const finish = async (request: Request) => {
    const { event } = request;
    const route = routeOfKey(event.routeKey);
    // Browser applications' cross-origin calls; pages are navigations, preflights answer their own.
    if (
      route &&
      route.kind !== 'page' &&
      route.kind !== 'preflight' &&
      request.response &&
      typeof request.response === 'object'
    ) {
      // Only public documents answer every origin; a non-public route of a function without a
      // lookup of registered origins (SCIM, for servers) answers none.
      const cors = await corsHeadersFor(
        event,
        route.kind === 'public' ? undefined : (registeredOrigin ?? noBrowserOrigin),
      );
      request.response = { ...request.response, headers: { ...request.response.headers, ...cors } };
    }
    // RFC 6797 (OWASP's HTTP Strict Transport Security sheet): browsers that reached the service
    // over HTTPS never use plain HTTP for it again. Local origins are plain HTTP, where it means nothing.
    if (
      request.response &&
      typeof request.response === 'object' &&
      config().publicOrigin.startsWith('https:')
    )
      request.response = {
        ...request.response,
        headers: { ...request.response.headers, 'strict-transport-security': STRICT_TRANSPORT_SECURITY },
      };
    const status = statusOf(request.response);
    dimensionRequest(event.routeKey, status);
    const claims = (event.requestContext as { authorizer?: { jwt?: { claims?: Record<string, unknown> } } })
      .authorizer?.jwt?.claims;
    // API Gateway's access log has each request (lib/idp-api.ts); this adds the function's view.
    logger.debug('request', {
      requestId: event.requestContext.requestId,
      route: event.routeKey,
      status,
      latencyMs: Date.now() - (started.get(request) ?? Date.now()),
      organizationId: claims?.org,
      principalId: claims?.sub,
    });
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      countMetric('Requests');
    },
    after: finish,
    onError: finish,
  };
};
