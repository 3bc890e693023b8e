import type { MiddlewareObj } from '@middy/core';
import type { RouteDefinition } from '../../api/route-definition.js';
import { forbidden, unauthorized } from '../errors.js';
import { requestState } from '../request-state.js';

/**
 * Enforces the route table's allowed user types, its permissions (all required) and, for routes
 * acting on `/{id}`, whether the principal itself may act without them.
 */
export const authorize = (route: RouteDefinition): MiddlewareObj => ({
  before: (request) => {
    const { principal } = requestState(request);
    if (!principal) throw unauthorized();
    if (!route.userTypes.includes(principal.userType)) {
      throw forbidden(`User type ${principal.userType} may not call this operation`);
    }
    const pathParameters = (request.event as { pathParameters?: Record<string, string> }).pathParameters;
    const actsOnItself = principal.type === 'user' && principal.id === pathParameters?.id;
    if (route.subject === 'self') {
      if (!actsOnItself) throw forbidden('Only the user itself may do this');
      return;
    }
    if (route.subject === 'self-or-permissions' && actsOnItself) return;
    const missing = route.permissions.filter((permission) => !principal.permissions.has(permission));
    if (missing.length > 0) throw forbidden(`Missing permission: ${missing.join(', ')}`);
  },
});
