import { auditRoutes } from '../../../shared/api/routes/audit.js';
import { clientsRoutes } from '../../../shared/api/routes/clients.js';
import { policiesRoutes } from '../../../shared/api/routes/policies.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { ssoRoutes } from '../../../shared/api/routes/sso.js';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { usersRoutes } from '../../../shared/api/routes/users.js';

/**
 * The console's screens and what each needs: a screen is listed, and reached by its address,
 * only when the person's token holds the permissions of its listing's route (the API refuses the
 * rest anyway) and, for the screens the catalogue's `UI` module names, that page's access type
 * (`UI.USERS`, ...), as `/idp/me/ui-permissions` answers them: an organization can keep a person
 * who may call the API out of a console page.
 */
export interface ScreenEntry {
  path: string;
  title: string;
  /** What its listing's route needs (every one). */
  permissions: readonly string[];
  /** The access type of the `UI` module the page also needs, if any. */
  ui?: 'USERS' | 'USER_GROUPS' | 'ROLES' | 'POLICIES' | 'API_CLIENTS' | 'SETTINGS';
}

export const SCREENS: readonly ScreenEntry[] = [
  { path: 'users', title: 'Users', permissions: usersRoutes.listUsers.permissions, ui: 'USERS' },
  {
    path: 'groups',
    title: 'User groups',
    permissions: userGroupsRoutes.listUserGroups.permissions,
    ui: 'USER_GROUPS',
  },
  { path: 'roles', title: 'Roles', permissions: rolesRoutes.listRoles.permissions, ui: 'ROLES' },
  {
    path: 'policies',
    title: 'Policies',
    permissions: policiesRoutes.listPolicies.permissions,
    ui: 'POLICIES',
  },
  {
    path: 'clients',
    title: 'Clients',
    permissions: clientsRoutes.listApiClients.permissions,
    ui: 'API_CLIENTS',
  },
  {
    path: 'sso',
    title: 'SSO providers',
    permissions: ssoRoutes.listSsoProviders.permissions,
    ui: 'SETTINGS',
  },
  { path: 'audit', title: 'Audit log', permissions: auditRoutes.listAuditEvents.permissions },
  // Every signed-in person: their own permissions and consent.
  { path: 'me', title: 'My account', permissions: [] },
];

/** Whether the person's permissions let them call a route (the route table says which it needs). */
export const mayCall = (route: { permissions: readonly string[] }, held: readonly string[]) =>
  route.permissions.every((permission) => held.includes(permission));

/** `mayCall` bound to one person's permissions: what a screen asks of each action it shows. */
export const mayCallWith = (held: readonly string[]) => (route: { permissions: readonly string[] }) =>
  mayCall(route, held);

export const allowed = (screen: ScreenEntry, held: readonly string[], ui: readonly string[]) =>
  screen.permissions.every((permission) => held.includes(permission)) &&
  (screen.ui === undefined || ui.includes(screen.ui));

/** What a screen needs, as a person reads it: `USER.LIST and UI.USERS`. */
export const needsOf = (screen: ScreenEntry) =>
  [...screen.permissions, ...(screen.ui ? [`UI.${screen.ui}`] : [])].join(' and ');
