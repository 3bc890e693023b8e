import type { RouteDefinition } from './route-definition.js';
import { accountsRoutes } from './routes/accounts.js';
import { auditRoutes } from './routes/audit.js';
import { clientsRoutes } from './routes/clients.js';
import { consoleRoutes } from './routes/console.js';
import { corsRoutes } from './routes/cors.js';
import { federationRoutes } from './routes/federation.js';
import { oauthRoutes } from './routes/oauth.js';
import { openApiRoutes } from './routes/openapi.js';
import { organizationsRoutes } from './routes/organizations.js';
import { passkeysRoutes } from './routes/passkeys.js';
import { permissionsRoutes } from './routes/permissions.js';
import { policiesRoutes } from './routes/policies.js';
import { rolesRoutes } from './routes/roles.js';
import { scimRoutes } from './routes/scim.js';
import { scimTokensRoutes } from './routes/scim-tokens.js';
import { signinRoutes } from './routes/signin.js';
import { ssoRoutes } from './routes/sso.js';
import { userGroupsRoutes } from './routes/user-groups.js';
import { userPasswordsRoutes } from './routes/user-passwords.js';
import { userPicturesRoutes } from './routes/user-pictures.js';
import { usersRoutes } from './routes/users.js';

/**
 * The route table: every operation of the service, once, one file per endpoint group. The CDK
 * stack, the OpenAPI document and the local server read all of it; each function imports only
 * its own group's file.
 */
export const routes = {
  ...oauthRoutes,
  ...openApiRoutes,
  ...permissionsRoutes,
  ...organizationsRoutes,
  ...usersRoutes,
  ...userPasswordsRoutes,
  ...userPicturesRoutes,
  ...userGroupsRoutes,
  ...rolesRoutes,
  ...policiesRoutes,
  ...clientsRoutes,
  ...ssoRoutes,
  ...signinRoutes,
  ...accountsRoutes,
  ...passkeysRoutes,
  ...consoleRoutes,
  ...federationRoutes,
  ...corsRoutes,
  ...auditRoutes,
  ...scimRoutes,
  ...scimTokensRoutes,
} as const satisfies Record<string, RouteDefinition>;

export type Routes = typeof routes;
export type OperationId = keyof Routes;

export const ROUTES: readonly RouteDefinition[] = Object.values(routes);
