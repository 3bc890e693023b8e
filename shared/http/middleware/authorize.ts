import type { MiddlewareObj } from '@middy/core';
import type { RouteDefinition } from '../../api/route-definition.js';
import { forbidden, unauthorized } from '../errors.js';
import { requestState } from '../request-state.js';

/** Enforces the route table's permissions (all required) and allowed user types. */
export const authorize = (route: RouteDefinition): MiddlewareObj => ({
  before: (request) => {
    const { principal } = requestState(request);
    if (!principal) throw unauthorized();
    if (!route.userTypes.includes(principal.userType)) {
      throw forbidden(`User type ${principal.userType} may not call this operation`);
    }
    const missing = route.permissions.filter((permission) => !principal.permissions.has(permission));
    if (missing.length > 0) throw forbidden(`Missing permission: ${missing.join(', ')}`);
  },
});
