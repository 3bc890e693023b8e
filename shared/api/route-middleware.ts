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
  /** A SCIM directory's bearer secret or an OAuth token with SCIM.PROVISION, then the rate limit:
   * every SCIM route (shared/http/middleware/scim-admission.ts). */
  readonly provisioning: boolean;
  readonly jsonBody: boolean;
  readonly multipartFile: boolean;
  /** Path, query and body checked against their schemas (closed, but SCIM's, whose resources
   * may carry attributes the service does not keep): every route but the OAuth endpoints, which
   * answer RFC 6749 errors of their own, and hosted pages, which answer pages. */
  readonly validation: boolean;
  /** `Idempotency-Key` honoured (records under `IDEMPOTENCY#…`): non-GET management routes that
   * are not idempotent by nature. */
  readonly idempotency: boolean;
}

export const middlewareOf = (route: RouteDefinition): RouteMiddleware => {
  const authenticated = route.kind === 'management';
  return {
    authenticated,
    provisioning: route.kind === 'scim',
    jsonBody: route.request.body !== undefined,
    multipartFile: route.request.multipartFile !== undefined,
    validation: route.kind === 'management' || route.kind === 'public' || route.kind === 'scim',
    idempotency: authenticated && route.method !== 'GET' && !route.idempotentByNature && !route.bodyIsSecret,
  };
};
