import type { RouteDefinition } from './route-definition.js';

/**
 * What a route's middleware chain does, decided from the route alone. The chain
 * (shared/http/group-handler.ts), the function's IAM grants (lib/table-grants.ts) and the OpenAPI
 * document (shared/api/openapi.ts) all read this one decision.
 */
export interface RouteMiddleware {
  /** The principal is still active, the organization's rate limit admits the request, the
   * permissions and user types of the route hold: every management route. */
  readonly authenticated: boolean;
  readonly jsonBody: boolean;
  readonly multipartFile: boolean;
  /** Path, query and body checked against closed schemas: every route but the OAuth endpoints,
   * which answer RFC 6749 errors of their own, and hosted pages, which answer pages. */
  readonly validation: boolean;
  /** `Idempotency-Key` honoured (records under `IDEMPOTENCY#…`): non-GET management routes that
   * are not idempotent by nature. */
  readonly idempotency: boolean;
}

export const middlewareOf = (route: RouteDefinition): RouteMiddleware => {
  const authenticated = route.kind === 'management';
  return {
    authenticated,
    jsonBody: route.request.body !== undefined,
    multipartFile: route.request.multipartFile !== undefined,
    validation: route.kind === 'management' || route.kind === 'public',
    idempotency: authenticated && route.method !== 'GET' && !route.idempotentByNature,
  };
};
