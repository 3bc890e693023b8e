/**
 * The system permission catalogue: every module and access type the specification uses, plus a
 * `UI` module for the admin console's pages. A permission's id is `MODULE.ACCESSTYPE`, the same
 * string the token's `permissions` claim and the route table use, so ids stay readable in roles,
 * tokens and logs alike.
 */
const MODULES = {
  API_CLIENTS: { displayName: 'API clients', accessTypes: ['READ', 'WRITE'] },
  PERMISSIONS: { displayName: 'Permissions', accessTypes: ['LIST', 'DETAILS'] },
  ROLES: { displayName: 'Roles', accessTypes: ['LIST', 'ADD', 'DETAILS', 'UPDATE', 'DELETE'] },
  DETAILED_PERMISSION: { displayName: 'Policies', accessTypes: ['READ', 'WRITE'] },
  USER: { displayName: 'Users', accessTypes: ['LIST', 'ADD', 'DETAILS', 'UPDATE', 'DELETE'] },
  USER_ROLES: { displayName: 'User roles', accessTypes: ['GRANT', 'REVOKE'] },
  USER_POLICIES: { displayName: 'User policies', accessTypes: ['GRANT', 'REVOKE'] },
  USER_GROUP: {
    displayName: 'User groups',
    accessTypes: ['ADD', 'READ', 'UPDATE', 'DELETE', 'GRANT', 'REVOKE'],
  },
  SSO: { displayName: 'Single sign-on', accessTypes: ['ADMIN'] },
  UI: {
    displayName: 'Admin console',
    accessTypes: ['USERS', 'USER_GROUPS', 'ROLES', 'POLICIES', 'API_CLIENTS', 'SETTINGS'],
  },
  AUDIT: { displayName: 'Audit log', accessTypes: ['READ'] },
  // ADMIN manages the organization's SCIM bearer secrets; PROVISION lets an API client's token call /scim/v2.
  SCIM: { displayName: 'SCIM provisioning', accessTypes: ['ADMIN', 'PROVISION'] },
} as const;

type Modules = typeof MODULES;
export type PermissionModule = keyof Modules;
export type PermissionId = {
  [M in PermissionModule]: `${M}.${Modules[M]['accessTypes'][number]}`;
}[PermissionModule];

const ACCESS_TYPE_DISPLAY_NAMES: Record<string, string> = {
  READ: 'Read',
  WRITE: 'Write',
  LIST: 'List',
  DETAILS: 'View details',
  ADD: 'Add',
  UPDATE: 'Update',
  DELETE: 'Delete',
  GRANT: 'Grant',
  REVOKE: 'Revoke',
  ADMIN: 'Administer',
  PROVISION: 'Provision',
  USERS: 'Users page',
  USER_GROUPS: 'User groups page',
  ROLES: 'Roles page',
  POLICIES: 'Policies page',
  API_CLIENTS: 'API clients page',
  SETTINGS: 'Settings page',
};

export interface CataloguePermission {
  id: PermissionId;
  module: PermissionModule;
  accessType: string;
  moduleDisplayName: string;
  accessTypeDisplayName: string;
  /** Position in the catalogue: the creation order the list operations return. */
  position: number;
  /** Permissions this one needs to be useful (direct dependencies). */
  dependsOn: PermissionId[];
}

/** Direct dependencies: holding the key permission implies holding the listed ones. */
const DEPENDENCIES: Partial<Record<PermissionId, PermissionId[]>> = {
  'API_CLIENTS.WRITE': ['API_CLIENTS.READ'],
  'PERMISSIONS.DETAILS': ['PERMISSIONS.LIST'],
  'ROLES.ADD': ['ROLES.LIST', 'PERMISSIONS.LIST'],
  'ROLES.DETAILS': ['ROLES.LIST'],
  'ROLES.UPDATE': ['ROLES.DETAILS', 'PERMISSIONS.LIST'],
  'ROLES.DELETE': ['ROLES.DETAILS'],
  'DETAILED_PERMISSION.WRITE': ['DETAILED_PERMISSION.READ'],
  'USER.ADD': ['USER.LIST'],
  'USER.DETAILS': ['USER.LIST'],
  'USER.UPDATE': ['USER.DETAILS'],
  'USER.DELETE': ['USER.DETAILS'],
  'USER_ROLES.GRANT': ['USER.DETAILS', 'ROLES.LIST'],
  'USER_ROLES.REVOKE': ['USER.DETAILS', 'ROLES.LIST'],
  'USER_POLICIES.GRANT': ['USER.DETAILS', 'DETAILED_PERMISSION.READ'],
  'USER_POLICIES.REVOKE': ['USER.DETAILS', 'DETAILED_PERMISSION.READ'],
  'USER_GROUP.ADD': ['USER_GROUP.READ'],
  'USER_GROUP.UPDATE': ['USER_GROUP.READ'],
  'USER_GROUP.DELETE': ['USER_GROUP.READ'],
  'USER_GROUP.GRANT': ['USER_GROUP.READ', 'USER.DETAILS'],
  'USER_GROUP.REVOKE': ['USER_GROUP.READ', 'USER.DETAILS'],
};

export const PERMISSION_CATALOGUE: readonly CataloguePermission[] = Object.entries(MODULES)
  .flatMap(([module, definition]) =>
    definition.accessTypes.map((accessType) => {
      const id = `${module}.${accessType}` as PermissionId;
      return {
        id,
        module: module as PermissionModule,
        accessType,
        moduleDisplayName: definition.displayName,
        accessTypeDisplayName: ACCESS_TYPE_DISPLAY_NAMES[accessType] ?? accessType,
        position: 0,
        dependsOn: DEPENDENCIES[id] ?? [],
      };
    }),
  )
  .map((permission, position) => ({ ...permission, position }));

export const ALL_PERMISSION_IDS: readonly PermissionId[] = PERMISSION_CATALOGUE.map((p) => p.id);

export interface ManagedRoleDefinition {
  id: string;
  permissions: PermissionId[];
}

/** System roles every organization can grant; read-only through the API. */
export const MANAGED_ROLES: readonly ManagedRoleDefinition[] = [
  { id: 'administrator', permissions: [...ALL_PERMISSION_IDS] },
  {
    id: 'read-only',
    // The audit log shows who did what from where: administrators only (issue 26), not every reader.
    // Nor API_CLIENTS.READ: the client list holds every client's secret, whose tokens hold anything.
    permissions: ALL_PERMISSION_IDS.filter(
      (id) => /\.(LIST|DETAILS|READ)$/.test(id) && id !== 'AUDIT.READ' && id !== 'API_CLIENTS.READ',
    ),
  },
  {
    id: 'user-manager',
    permissions: ALL_PERMISSION_IDS.filter((id) => /^(USER|USER_ROLES|USER_GROUP)\./.test(id)),
  },
];
