import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition } from '../api/route-definition.js';
import { auditScope } from '../audit/scope.js';
import { verifiedOwnToken } from '../auth/own-tokens.js';
import { accessTokenClaims, type Principal, principalFromClaims } from '../auth/principal.js';
import { config } from '../config.js';
import { isScimTokenValue } from '../domain/scim-token-value.js';
import { forbidden, unauthorized } from '../http/errors.js';
import { admit } from '../http/middleware/admission.js';
import { recordRefusal } from '../http/middleware/audit-refusals.js';
import { refuseKnownOverLimit } from '../http/middleware/rate-limit.js';
import { requestState } from '../http/request-state.js';
import { scimTokenOf } from '../store/scim-tokens.js';

export const PROVISIONING_PERMISSION = 'SCIM.PROVISION';

const bearerToken = (authorization: string | undefined): string | undefined =>
  authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];

/**
 * Who provisions: the organization's SCIM bearer secret (read on every request, so a revoked one
 * is refused from the next request on), or an access token of an API client of the service that
 * holds SCIM.PROVISION. A secret acts as a client whose id is the token's id.
 */
const provisioningPrincipal = async (token: string): Promise<Principal> => {
  if (isScimTokenValue(token)) {
    const owner = await scimTokenOf(token);
    if (!owner) throw unauthorized('The SCIM bearer secret is not valid (unknown or revoked)');
    return {
      id: owner.tokenId,
      type: 'client',
      organizationId: owner.organizationId,
      userType: 'STANDARD',
      permissions: new Set([PROVISIONING_PERMISSION]),
      policies: [],
      pluginPermissions: {},
    };
  }
  // Signature, typ at+jwt, iss, aud and exp are aws-jwt-verify's; the claims are the service's.
  const payload = await verifiedOwnToken(token, { typ: 'at+jwt', audience: config().audience });
  const claims = payload && accessTokenClaims().safeParse(payload);
  if (!claims?.success) throw unauthorized();
  return principalFromClaims(claims.data);
};

/**
 * Admits a SCIM request: who provisions, then the organization's rate limit (and, for an API
 * client's token, that the client still exists) side by side, then whether it may provision. The audit scope names the
 * provisioning client as the actor of every record the request writes; refused writes leave
 * their record, as on management routes.
 */
export const scimAdmission = (route: RouteDefinition): MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: async (request) => {
    const state = requestState(request);
    const token = bearerToken(request.event.headers.authorization);
    if (!token) throw unauthorized('A SCIM bearer secret or access token is required');
    const principal = await provisioningPrincipal(token);
    // Known before it may be refused: a refused write is recorded with its actor (onError).
    state.principal = principal;
    const scope = auditScope();
    scope.actor = { ...scope.actor, type: principal.type, id: principal.id };
    // Counted and its standing checked before its permission, as on management routes: a refusal
    // uses the organization's allowance (it writes an audit record), and a deleted client is 401.
    refuseKnownOverLimit(principal, state.receivedAt);
    await admit(principal, state.receivedAt, { statusKnown: isScimTokenValue(token) });
    if (principal.type !== 'client' || !principal.permissions.has(PROVISIONING_PERMISSION)) {
      throw forbidden(`SCIM provisioning needs an API client's token holding ${PROVISIONING_PERMISSION}`);
    }
  },
  onError: (request) => recordRefusal(request, route),
});
