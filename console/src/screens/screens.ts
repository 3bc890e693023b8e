import { auditRoutes } from '../../../shared/api/routes/audit.js';
import { clientsRoutes } from '../../../shared/api/routes/clients.js';
import { policiesRoutes } from '../../../shared/api/routes/policies.js';
import { rolesRoutes } from '../../../shared/api/routes/roles.js';
import { ssoRoutes } from '../../../shared/api/routes/sso.js';
import { userGroupsRoutes } from '../../../shared/api/routes/user-groups.js';
import { usersRoutes } from '../../../shared/api/routes/users.js';

/** What the API checks of a caller before a route's handler runs: permissions and user type. */
export interface RouteNeeds {
  permissions: readonly string[];
  userTypes: readonly string[];
}

/** Who calls, as their access token says: its permissions and the person's `user_type`. */
export interface Caller {
  permissions: readonly string[];
  userType: string | undefined;
}

/**
 * The console's screens and what each needs: a screen is listed, and reached by its address,
 * only when the person may call its listing's route (its permissions and user types; the API
 * refuses the rest anyway) and, for the screens the catalogue's `UI` module names, that page's
 * access type (`UI.USERS`, ...), as `/idp/me/ui-permissions` answers them: an organization can
 * keep a person who may call the API out of a console page.
 */
export interface ScreenEntry {
  path: string;
  title: string;
  /** Its listing's route (none: every signed-in person may open it). */
  route?: RouteNeeds;
  /** The access type of the `UI` module the page also needs, if any. */
  ui?: 'USERS' | 'USER_GROUPS' | 'ROLES' | 'POLICIES' | 'API_CLIENTS' | 'SETTINGS';
}

export const SCREENS: readonly ScreenEntry[] = [
  { path: 'users', title: 'Users', route: usersRoutes.listUsers, ui: 'USERS' },
  {
    path: 'groups',
    title: 'User groups',
    route: userGroupsRoutes.listUserGroups,
    ui: 'USER_GROUPS',
  },
  { path: 'roles', title: 'Roles', route: rolesRoutes.listRoles, ui: 'ROLES' },
  {
    path: 'policies',
    title: 'Policies',
    route: policiesRoutes.listPolicies,
    ui: 'POLICIES',
  },
  {
    path: 'clients',
    title: 'Clients',
    route: clientsRoutes.listApiClients,
    ui: 'API_CLIENTS',
  },
  {
    path: 'sso',
    title: 'SSO providers',
    route: ssoRoutes.listSsoProviders,
    ui: 'SETTINGS',
  },
  { path: 'audit', title: 'Audit log', route: auditRoutes.listAuditEvents },
  // Every signed-in person: their own permissions and consent.
  { path: 'me', title: 'My account' },
];

/**
 * Whether the person may call a route: their token holds its permissions and their user type is
 * one it serves (user groups are STANDARD callers' only: a RESTRICTED person is refused 403).
 */
export const mayCall = (route: RouteNeeds, caller: Caller) =>
  route.permissions.every((permission) => caller.permissions.includes(permission)) &&
  (caller.userType === undefined || route.userTypes.includes(caller.userType));

/** `mayCall` bound to one person: what a screen asks of each action it shows. */
export const mayCallWith = (caller: Caller) => (route: RouteNeeds) => mayCall(route, caller);

export const allowed = (screen: ScreenEntry, caller: Caller, ui: readonly string[]) =>
  (screen.route === undefined || mayCall(screen.route, caller)) &&
  (screen.ui === undefined || ui.includes(screen.ui));

/** What a screen needs, as a person reads it: `USER.LIST and UI.USERS`, `... and a STANDARD user`. */
export const needsOf = (screen: ScreenEntry) =>
  [
    ...(screen.route?.permissions ?? []),
    ...(screen.ui ? [`UI.${screen.ui}`] : []),
    ...(screen.route && screen.route.userTypes.length === 1 ? [`a ${screen.route.userTypes[0]} user`] : []),
  ].join(' and ');
