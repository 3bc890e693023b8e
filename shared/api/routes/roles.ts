import { MAX_MANAGED_ROLES } from '../../domain/limits.js';
import {
  assignRevokeRolePermissionRequest,
  assignRevokeRolePluginPermissionRequest,
  defaultRoleRequest,
  defaultRoleResponse,
  managedRole,
  newRoleRequest,
  pluginPermissionsRequest,
  role,
  rolePluginPermissionIds,
  updateRoleRequest,
} from '../../schemas/roles.js';
import * as z from '../../zod.js';
import { noContent, ok, pagedListing, routeGroup } from '../route-definition.js';

const permissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    route: `POST /idp/roles/{id}/permissions/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permission ids (idempotent)`,
    description:
      action === 'assign'
        ? 'Every id must be in the catalogue (400 naming each); ids held already change nothing, and an empty list only checks that the role exists. An archived role is 404.'
        : 'Ids not held change nothing, and ids are not checked against the catalogue, so one it no longer has can still be removed; an empty list only checks that the role exists. An archived role is 404.',
    permissions: ['ROLES.UPDATE'],
    audit: ['role.updated'],
    request: { body: assignRevokeRolePermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

const pluginPermissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    route: `POST /idp/roles/{id}/plugin/{pluginId}/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permissions of a plugin assigned to the organization`,
    description: `Each \`{module, actionName}\` must match one of the plugin's definitions (400 naming it); ${action === 'assign' ? 'those held already change nothing' : 'those not held change nothing'}. 404 for a plugin not assigned to the organization, or for a role that is unknown or archived.`,
    permissions: ['ROLES.UPDATE'],
    audit: ['role.pluginPermissions.set'],
    request: { body: assignRevokeRolePluginPermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

/** Roles, managed roles and the default role (spec 4.3). */
export const rolesRoutes = routeGroup('roles')({
  listRoles: {
    route: 'GET /idp/roles',
    summary: 'Roles that are not archived, oldest first',
    description: `Lists the organization's roles that are not archived in creation order, one page at a time (\`page\`, \`pageSize\`; \`Link: <...>; rel="next"\` while more exist).`,
    permissions: ['ROLES.LIST'],
    ...pagedListing('roles', role),
  },
  createRole: {
    route: 'POST /idp/roles',
    summary: 'Create a role (name unique among roles that are not archived, case-insensitively)',
    description:
      'The name is trimmed, 1 to 200 characters, and unique among roles that are not archived, compared case-insensitively (409); every permission id must be in the catalogue (400 naming each). Answers 204 with `Location`.',
    permissions: ['ROLES.ADD'],
    audit: ['role.created'],
    request: { body: newRoleRequest },
    response: { ...noContent('Created; Location names it'), location: true },
  },
  getRole: {
    route: 'GET /idp/roles/{id}',
    summary: 'One role',
    description:
      'Reads one role with its permissions (sorted), the dependencies they add, and its plugin permissions; an archived role, or one of another organization, is 404.',
    permissions: ['ROLES.DETAILS'],
    response: ok('The role', role),
  },
  updateRole: {
    route: 'PUT /idp/roles/{id}',
    summary: "Replace the role's permissions",
    description:
      'Replaces the whole set of catalogue permissions (400 naming any id not in the catalogue); tokens issued afterwards carry the change. An archived role is 404.',
    permissions: ['ROLES.UPDATE'],
    audit: ['role.updated'],
    request: { body: updateRoleRequest },
    response: noContent('Updated'),
  },
  archiveRole: {
    route: 'DELETE /idp/roles/{id}',
    summary: 'Archive the role: it is no longer listed, readable or grantable, and grants nothing',
    description:
      'The role stays stored, marked: it is 404 to read, update or archive again, unlisted and not grantable, it grants nothing to those holding it in tokens issued afterwards, and its name is free again. When it was the default role, new users receive none.',
    permissions: ['ROLES.DELETE'],
    audit: ['role.archived'],
    response: noContent('Archived'),
  },
  assignRolePermissions: permissionChange('assign'),
  revokeRolePermissions: permissionChange('revoke'),
  getRolePluginPermissions: {
    route: 'GET /idp/roles/{id}/plugin/{pluginId}',
    summary: "Ids of the plugin's permission definitions the role holds",
    description:
      "Ids (sorted) of the plugin's permission definitions the role holds; 404 for a plugin not assigned to the organization, or for a role that is unknown or archived.",
    permissions: ['ROLES.DETAILS'],
    response: ok('Definition ids', rolePluginPermissionIds),
  },
  setRolePluginPermissions: {
    route: 'PUT /idp/roles/{id}/plugin/{pluginId}',
    summary: "Replace the role's permissions of a plugin assigned to the organization",
    description:
      "Replaces the role's permissions of one plugin (`[]` clears them); each `{module, actionName}` must match one of the plugin's definitions (400 naming it), and the plugin's own dependencies are not added. 404 for a plugin not assigned to the organization.",
    permissions: ['ROLES.UPDATE'],
    audit: ['role.pluginPermissions.set'],
    request: { body: pluginPermissionsRequest },
    response: noContent('Replaced'),
  },
  assignRolePluginPermissions: pluginPermissionChange('assign'),
  revokeRolePluginPermissions: pluginPermissionChange('revoke'),
  listManagedRoles: {
    route: 'GET /idp/managedRoles',
    summary: 'Managed (system) roles, oldest first',
    description:
      'The global managed (system) roles, built-in (`administrator`, `read-only`, `user-manager`) and operator-defined, at most 100; read-only through the API and grantable in every organization.',
    permissions: ['ROLES.LIST'],
    response: ok('Managed roles', z.array(managedRole).check(z.maxLength(MAX_MANAGED_ROLES))),
  },
  getManagedRole: {
    route: 'GET /idp/managedRoles/{id}',
    summary: 'One managed role',
    description:
      'One managed role by its id, such as `read-only`, with its permissions; 404 for an unknown id.',
    permissions: ['ROLES.DETAILS'],
    response: ok('The managed role', managedRole),
  },
  getDefaultRole: {
    route: 'GET /idp/getDefaultRole',
    summary: 'The role new users receive; isStandardRole null when none is set',
    description:
      "The role (`isStandardRole: true`) or managed role (`false`) the organization's new users receive when they are created.",
    permissions: ['ROLES.LIST'],
    response: ok('The default role', defaultRoleResponse),
  },
  setDefaultRole: {
    route: 'POST /idp/setDefaultRole',
    summary: 'Set the role new users receive: a role id or a managed role id',
    description:
      'A role id (`isStandardRole: true`) or a managed role id (`false`); a role id wins when both exist, and neither, or an archived role, is 404. Users that exist already keep what they were given.',
    permissions: ['ROLES.UPDATE'],
    audit: ['defaultRole.set'],
    request: { body: defaultRoleRequest },
    response: noContent('Set'),
    errors: [404],
  },
  clearDefaultRole: {
    route: 'DELETE /idp/clearDefaultRole',
    summary: 'New users receive no role',
    description:
      '`GET /getDefaultRole` then answers `{"isStandardRole": null}`. Users that exist already keep what they were given.',
    permissions: ['ROLES.UPDATE'],
    audit: ['defaultRole.cleared'],
    response: noContent('Cleared'),
  },
});
