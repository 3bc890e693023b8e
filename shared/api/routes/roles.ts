import { z } from 'zod';
import { idPathParams, pagingQuery } from '../../schemas/common.js';
import {
  assignRevokeRolePermissionRequest,
  assignRevokeRolePluginPermissionRequest,
  defaultRoleRequest,
  defaultRoleResponse,
  managedRole,
  newRoleRequest,
  pluginPermissionsRequest,
  role,
  rolePluginPathParams,
  rolePluginPermissionIds,
  updateRoleRequest,
} from '../../schemas/roles.js';
import { routeGroup } from '../route-definition.js';

const done = (description: string) => ({ status: 204 as const, description });

const permissionChange = (action: 'assign' | 'revoke') =>
  ({
    method: 'POST',
    path: `/idp/roles/{id}/permissions/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permission ids (idempotent)`,
    permissions: ['ROLES.UPDATE'],
    request: { path: idPathParams, body: assignRevokeRolePermissionRequest },
    response: done(action === 'assign' ? 'Assigned' : 'Revoked'),
    errors: [404],
  }) as const;

const pluginPermissionChange = (action: 'assign' | 'revoke') =>
  ({
    method: 'POST',
    path: `/idp/roles/{id}/plugin/{pluginId}/${action}`,
    summary: `${action === 'assign' ? 'Add' : 'Remove'} permissions of a plugin assigned to the organization`,
    permissions: ['ROLES.UPDATE'],
    request: { path: rolePluginPathParams, body: assignRevokeRolePluginPermissionRequest },
    response: done(action === 'assign' ? 'Assigned' : 'Revoked'),
    errors: [404],
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
    response: done('Created'),
    errors: [409],
  },
  getRole: {
    method: 'GET',
    path: '/idp/roles/{id}',
    summary: 'One role',
    permissions: ['ROLES.DETAILS'],
    request: { path: idPathParams },
    response: { status: 200, description: 'The role', body: role },
    errors: [404],
  },
  updateRole: {
    method: 'PUT',
    path: '/idp/roles/{id}',
    summary: "Replace the role's permissions",
    permissions: ['ROLES.UPDATE'],
    request: { path: idPathParams, body: updateRoleRequest },
    response: done('Updated'),
    errors: [404],
  },
  archiveRole: {
    method: 'DELETE',
    path: '/idp/roles/{id}',
    summary: 'Archive the role: it is no longer listed, readable or grantable, and grants nothing',
    permissions: ['ROLES.DELETE'],
    request: { path: idPathParams },
    response: done('Archived'),
    errors: [404],
  },
  assignRolePermissions: permissionChange('assign'),
  revokeRolePermissions: permissionChange('revoke'),
  getRolePluginPermissions: {
    method: 'GET',
    path: '/idp/roles/{id}/plugin/{pluginId}',
    summary: "Ids of the plugin's permission definitions the role holds",
    permissions: ['ROLES.DETAILS'],
    request: { path: rolePluginPathParams },
    response: { status: 200, description: 'Definition ids', body: rolePluginPermissionIds },
    errors: [404],
  },
  setRolePluginPermissions: {
    method: 'PUT',
    path: '/idp/roles/{id}/plugin/{pluginId}',
    summary: "Replace the role's permissions of a plugin assigned to the organization",
    permissions: ['ROLES.UPDATE'],
    request: { path: rolePluginPathParams, body: pluginPermissionsRequest },
    response: done('Replaced'),
    errors: [404],
  },
  assignRolePluginPermissions: pluginPermissionChange('assign'),
  revokeRolePluginPermissions: pluginPermissionChange('revoke'),
  listManagedRoles: {
    method: 'GET',
    path: '/idp/managedRoles',
    summary: 'Managed (system) roles, oldest first',
    permissions: ['ROLES.LIST'],
    request: {},
    response: { status: 200, description: 'Managed roles', body: z.array(managedRole) },
  },
  getManagedRole: {
    method: 'GET',
    path: '/idp/managedRoles/{id}',
    summary: 'One managed role',
    permissions: ['ROLES.DETAILS'],
    request: { path: idPathParams },
    response: { status: 200, description: 'The managed role', body: managedRole },
    errors: [404],
  },
  getDefaultRole: {
    method: 'GET',
    path: '/idp/getDefaultRole',
    summary: 'The role new users receive; isStandardRole null when none is set',
    permissions: ['ROLES.LIST'],
    request: {},
    response: { status: 200, description: 'The default role', body: defaultRoleResponse },
  },
  setDefaultRole: {
    method: 'POST',
    path: '/idp/setDefaultRole',
    summary: 'Set the role new users receive: a role id or a managed role id',
    permissions: ['ROLES.UPDATE'],
    request: { body: defaultRoleRequest },
    response: done('Set'),
    errors: [404],
  },
  clearDefaultRole: {
    method: 'DELETE',
    path: '/idp/clearDefaultRole',
    summary: 'New users receive no role',
    permissions: ['ROLES.UPDATE'],
    request: {},
    response: done('Cleared'),
  },
});
