import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda';
import type { RouteDefinition } from '../../api/route-definition.js';
import { unverifiedPayload } from '../../auth/compact-jwt.js';
import { accessTokenClaims, principalFromClaims } from '../../auth/principal.js';
import { unauthorized } from '../errors.js';
import { requestState } from '../request-state.js';

const bearerToken = (authorization: string | undefined): string | undefined =>
  authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];

/**
 * Builds the request context: route, request id, arrival time and, on management routes, the
 * principal. API Gateway's JWT authorizer has verified the token; it passes scalar claims as they
 * are but flattens arrays and objects into strings, so the typed claims are read from the token
 * it verified, after checking that the token's `jti` is the one the authorizer reports.
 */
export const requestContext = (
  route: RouteDefinition,
): MiddlewareObj<APIGatewayProxyEventV2WithJWTAuthorizer, unknown, Error> => ({
  before: (request) => {
    const { event } = request;
    const state = requestState(request);
    state.route = route;
    state.requestId = event.requestContext.requestId;
    state.receivedAt = event.requestContext.timeEpoch;
    if (route.kind !== 'management') return;

    const verifiedJti = event.requestContext.authorizer?.jwt?.claims?.jti;
    const token = bearerToken(event.headers.authorization);
    if (!verifiedJti || !token) throw unauthorized();
    const claims = accessTokenClaims().safeParse(unverifiedPayload(token));
    if (!claims.success || claims.data.jti !== String(verifiedJti)) throw unauthorized(undefined, true);
    state.principal = principalFromClaims(claims.data);
  },
});
