import { z } from 'zod';
import { pagingQuery } from '../../schemas/common.js';
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
import { noContent, routeGroup } from '../route-definition.js';

const permissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    method: 'POST',
    path: `/idp/roles/{id}/permissions/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permission ids (idempotent)`,
    permissions: ['ROLES.UPDATE'],
    request: { body: assignRevokeRolePermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

const pluginPermissionChange = <A extends 'assign' | 'revoke'>(action: A) =>
  ({
    method: 'POST',
    path: `/idp/roles/{id}/plugin/{pluginId}/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permissions of a plugin assigned to the organization`,
    permissions: ['ROLES.UPDATE'],
    request: { body: assignRevokeRolePluginPermissionRequest },
    response: noContent(action === 'assign' ? 'Assigned' : 'Revoked'),
  }) as const;

/** Roles, managed roles and the default role (spec 4.3). */
export const rolesRoutes = routeGroup('roles')({
  listRoles: {
    method: 'GET',
    path: '/idp/roles',
    summary: 'Roles that are not archived, oldest first',
    permissions: ['ROLES.LIST'],
    request: { query: pagingQuery },
    response: { status: 200, description: 'One page; Link rel="next" while more exist', body: z.array(role) },
  },
  createRole: {
    method: 'POST',
    path: '/idp/roles',
    summary: 'Create a role (name unique among roles that are not archived, case-insensitively)',
    permissions: ['ROLES.ADD'],
    request: { body: newRoleRequest },
    response: noContent('Created'),
  },
  getRole: {
    method: 'GET',
    path: '/idp/roles/{id}',
    summary: 'One role',
    permissions: ['ROLES.DETAILS'],
    response: { status: 200, description: 'The role', body: role },
  },
  updateRole: {
    method: 'PUT',
    path: '/idp/roles/{id}',
    summary: "Replace the role's permissions",
    permissions: ['ROLES.UPDATE'],
    request: { body: updateRoleRequest },
    response: noContent('Updated'),
  },
  archiveRole: {
    method: 'DELETE',
    path: '/idp/roles/{id}',
    summary: 'Archive the role: it is no longer listed, readable or grantable, and grants nothing',
    permissions: ['ROLES.DELETE'],
    response: noContent('Archived'),
  },
  assignRolePermissions: permissionChange('assign'),
  revokeRolePermissions: permissionChange('revoke'),
  getRolePluginPermissions: {
    method: 'GET',
    path: '/idp/roles/{id}/plugin/{pluginId}',
    summary: "Ids of the plugin's permission definitions the role holds",
    permissions: ['ROLES.DETAILS'],
    response: { status: 200, description: 'Definition ids', body: rolePluginPermissionIds },
  },
  setRolePluginPermissions: {
    method: 'PUT',
    path: '/idp/roles/{id}/plugin/{pluginId}',
    summary: "Replace the role's permissions of a plugin assigned to the organization",
    permissions: ['ROLES.UPDATE'],
    request: { body: pluginPermissionsRequest },
    response: noContent('Replaced'),
  },
  assignRolePluginPermissions: pluginPermissionChange('assign'),
  revokeRolePluginPermissions: pluginPermissionChange('revoke'),
  listManagedRoles: {
    method: 'GET',
    path: '/idp/managedRoles',
    summary: 'Managed (system) roles, oldest first',
    permissions: ['ROLES.LIST'],
    response: { status: 200, description: 'Managed roles', body: z.array(managedRole) },
  },
  getManagedRole: {
    method: 'GET',
    path: '/idp/managedRoles/{id}',
    summary: 'One managed role',
    permissions: ['ROLES.DETAILS'],
    response: { status: 200, description: 'The managed role', body: managedRole },
  },
  getDefaultRole: {
    method: 'GET',
    path: '/idp/getDefaultRole',
    summary: 'The role new users receive; isStandardRole null when none is set',
    permissions: ['ROLES.LIST'],
    response: { status: 200, description: 'The default role', body: defaultRoleResponse },
  },
  setDefaultRole: {
    method: 'POST',
    path: '/idp/setDefaultRole',
    summary: 'Set the role new users receive: a role id or a managed role id',
    permissions: ['ROLES.UPDATE'],
    request: { body: defaultRoleRequest },
    response: noContent('Set'),
    errors: [404],
  },
  clearDefaultRole: {
    method: 'DELETE',
    path: '/idp/clearDefaultRole',
    summary: 'New users receive no role',
    permissions: ['ROLES.UPDATE'],
    response: noContent('Cleared'),
  },
});
