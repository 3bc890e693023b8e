import { auditRoutes } from '../../../shared/api/routes/audit.js';
import { clientsRoutes } from '../../../shared/api/routes/clients.js';
import { policiesRoutes } from '../../../shared/api/routes/policies.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { ssoRoutes } from '../../../shared/api/routes/sso.js';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { usersRoutes } from '../../../shared/api/routes/users.js';

/**
 * The console's screens and what each needs: a screen is listed, and reached by its address,
 * only when the person's token holds one of its permissions (the API refuses the rest anyway).
 */
export interface ScreenEntry {
  path: string;
  title: string;
  /** What its listing's route needs (every one). */
  permissions: readonly string[];
}

export const SCREENS: readonly ScreenEntry[] = [
  { path: 'users', title: 'Users', permissions: usersRoutes.listUsers.permissions },
  { path: 'groups', title: 'User groups', permissions: userGroupsRoutes.listUserGroups.permissions },
  { path: 'roles', title: 'Roles', permissions: rolesRoutes.listRoles.permissions },
  { path: 'policies', title: 'Policies', permissions: policiesRoutes.listPolicies.permissions },
  { path: 'clients', title: 'Clients', permissions: clientsRoutes.listApiClients.permissions },
  { path: 'sso', title: 'SSO providers', permissions: ssoRoutes.listSsoProviders.permissions },
  { path: 'audit', title: 'Audit log', permissions: auditRoutes.listAuditEvents.permissions },
  // Every signed-in person: their own permissions and consent.
  { path: 'me', title: 'My account', permissions: [] },
];

/** Whether the person's permissions let them call a route (the route table says which it needs). */
export const mayCall = (route: { permissions: readonly string[] }, held: readonly string[]) =>
  route.permissions.every((permission) => held.includes(permission));

export const allowed = (screen: ScreenEntry, held: readonly string[]) =>
  screen.permissions.every((permission) => held.includes(permission));
