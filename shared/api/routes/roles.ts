import * as z from 'zod';
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
import { noContent, ok, pagedListing, routeGroup } from '../route-definition.js';

const permissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    route: `POST /idp/roles/{id}/permissions/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permission ids (idempotent)`,
    permissions: ['ROLES.UPDATE'],
    request: { body: assignRevokeRolePermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

const pluginPermissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    route: `POST /idp/roles/{id}/plugin/{pluginId}/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permissions of a plugin assigned to the organization`,
    permissions: ['ROLES.UPDATE'],
    request: { body: assignRevokeRolePluginPermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

/** Roles, managed roles and the default role (spec 4.3). */
export const rolesRoutes = routeGroup('roles')({
  listRoles: {
    route: 'GET /idp/roles',
    summary: 'Roles that are not archived, oldest first',
    permissions: ['ROLES.LIST'],
    ...pagedListing('roles', role),
  },
  createRole: {
    route: 'POST /idp/roles',
    summary: 'Create a role (name unique among roles that are not archived, case-insensitively)',
    permissions: ['ROLES.ADD'],
    request: { body: newRoleRequest },
    response: { ...noContent('Created; Location names it'), location: true },
  },
  getRole: {
    route: 'GET /idp/roles/{id}',
    summary: 'One role',
    permissions: ['ROLES.DETAILS'],
    response: ok('The role', role),
  },
  updateRole: {
    route: 'PUT /idp/roles/{id}',
    summary: "Replace the role's permissions",
    permissions: ['ROLES.UPDATE'],
    request: { body: updateRoleRequest },
    response: noContent('Updated'),
  },
  archiveRole: {
    route: 'DELETE /idp/roles/{id}',
    summary: 'Archive the role: it is no longer listed, readable or grantable, and grants nothing',
    permissions: ['ROLES.DELETE'],
    response: noContent('Archived'),
  },
  assignRolePermissions: permissionChange('assign'),
  revokeRolePermissions: permissionChange('revoke'),
  getRolePluginPermissions: {
    route: 'GET /idp/roles/{id}/plugin/{pluginId}',
    summary: "Ids of the plugin's permission definitions the role holds",
    permissions: ['ROLES.DETAILS'],
    response: ok('Definition ids', rolePluginPermissionIds),
  },
  setRolePluginPermissions: {
    route: 'PUT /idp/roles/{id}/plugin/{pluginId}',
    summary: "Replace the role's permissions of a plugin assigned to the organization",
    permissions: ['ROLES.UPDATE'],
    request: { body: pluginPermissionsRequest },
    response: noContent('Replaced'),
  },
  assignRolePluginPermissions: pluginPermissionChange('assign'),
  revokeRolePluginPermissions: pluginPermissionChange('revoke'),
  listManagedRoles: {
    route: 'GET /idp/managedRoles',
    summary: 'Managed (system) roles, oldest first',
    permissions: ['ROLES.LIST'],
    response: ok('Managed roles', z.array(managedRole).max(MAX_MANAGED_ROLES)),
  },
  getManagedRole: {
    route: 'GET /idp/managedRoles/{id}',
    summary: 'One managed role',
    permissions: ['ROLES.DETAILS'],
    response: ok('The managed role', managedRole),
  },
  getDefaultRole: {
    route: 'GET /idp/getDefaultRole',
    summary: 'The role new users receive; isStandardRole null when none is set',
    permissions: ['ROLES.LIST'],
    response: ok('The default role', defaultRoleResponse),
  },
  setDefaultRole: {
    route: 'POST /idp/setDefaultRole',
    summary: 'Set the role new users receive: a role id or a managed role id',
    permissions: ['ROLES.UPDATE'],
    request: { body: defaultRoleRequest },
    response: noContent('Set'),
    errors: [404],
  },
  clearDefaultRole: {
    route: 'DELETE /idp/clearDefaultRole',
    summary: 'New users receive no role',
    permissions: ['ROLES.UPDATE'],
    response: noContent('Cleared'),
  },
});
