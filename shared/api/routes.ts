import type { RouteDefinition } from './route-definition.js';
import { catalogueRoutes } from './routes/catalogue.js';
import { clientsRoutes } from './routes/clients.js';
import { oauthRoutes } from './routes/oauth.js';
import { organizationsRoutes } from './routes/organizations.js';
import { policiesRoutes } from './routes/policies.js';
import { rolesRoutes } from './routes/roles.js';
import { ssoRoutes } from './routes/sso.js';
import { userGroupsRoutes } from './routes/user-groups.js';
import { usersRoutes } from './routes/users.js';

/**
 * The route table: every operation of the service, once. The CDK stack, the function routers,
 * the permission and validation middleware, the OpenAPI document and the local server read it.
 */
export const routes = {
  ...oauthRoutes,
  ...catalogueRoutes,
  ...organizationsRoutes,
  ...usersRoutes,
  ...userGroupsRoutes,
  ...rolesRoutes,
  ...policiesRoutes,
  ...clientsRoutes,
  ...ssoRoutes,
} as const satisfies Record<string, RouteDefinition>;

export type Routes = typeof routes;
export type OperationId = keyof Routes;

export const ROUTES: readonly RouteDefinition[] = Object.values(routes);
