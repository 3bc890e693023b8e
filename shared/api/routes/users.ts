import * as z from 'zod';
import { minePermissions } from '../../schemas/catalogue.js';
import { MAX_PAGE_SIZE } from '../../schemas/common.js';
import {
  additionalUserProperties,
  changeStatusRequest,
  listUsersQuery,
  newUserRequest,
  removeAdditionalPropertiesRequest,
  setAdditionalPropertiesRequest,
  updateUserRequest,
  user,
  userRolePath,
  userTypePath,
} from '../../schemas/users.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** Users and the caller's own account (spec 4.1). */
export const usersRoutes = routeGroup('users')({
  listUsers: {
    route: 'GET /idp/users',
    summary: 'Users in creation order; ACTIVE ones, or only INACTIVE ones with fetchInactive=true',
    permissions: ['USER.LIST'],
    request: { query: listUsersQuery },
    response: {
      status: 200,
      description: 'One page of users; Link rel="next" while more exist',
      body: z.array(user).max(MAX_PAGE_SIZE),
    },
  },
  createUser: {
    route: 'POST /idp/users',
    summary: 'Create a user (email unique per organization) and send the join email',
    permissions: ['USER.ADD'],
    request: { body: newUserRequest },
    response: { ...noContent('Created; Location names the new user'), location: true },
  },
  getUser: {
    route: 'GET /idp/users/{id}',
    summary: 'One user',
    permissions: ['USER.DETAILS'],
    response: ok('The user', user),
  },
  updateUser: {
    route: 'PUT /idp/users/{id}',
    summary: 'Rename a user or change the email; the user itself, or USER.UPDATE',
    permissions: ['USER.UPDATE'],
    subject: 'self-or-permissions',
    request: { body: updateUserRequest },
    response: ok('The updated user', user),
  },
  resendJoinEmail: {
    route: 'PUT /idp/users/{id}/resendJoinEmail',
    summary: 'Send the join email again',
    permissions: ['USER.ADD'],
    response: noContent('Queued'),
  },
  setUserStatus: {
    route: 'PUT /idp/users/{id}/setUserStatus',
    summary: 'Activate or deactivate a user',
    permissions: ['USER.DELETE'],
    request: { body: changeStatusRequest },
    response: noContent('Changed'),
  },
  setUserType: {
    route: 'PUT /idp/users/{id}/userType/{type}',
    summary: 'Set the user type (case-insensitive)',
    permissions: ['USER.UPDATE'],
    request: { path: userTypePath },
    response: noContent('Changed'),
  },
  grantUserRole: {
    route: 'PUT /idp/users/{id}/roles/{roleName}/grant',
    summary: 'Grant a role, named by name or id',
    permissions: ['USER_ROLES.GRANT'],
    request: { path: userRolePath },
    response: noContent('Granted'),
  },
  revokeUserRole: {
    route: 'PUT /idp/users/{id}/roles/{roleName}/revoke',
    summary: 'Revoke a role, named by name or id',
    permissions: ['USER_ROLES.REVOKE'],
    request: { path: userRolePath },
    response: noContent('Revoked'),
  },
  grantUserPolicy: {
    route: 'PUT /idp/users/{id}/policies/{policyId}',
    summary: 'Grant a policy',
    permissions: ['USER_POLICIES.GRANT'],
    response: noContent('Granted'),
  },
  revokeUserPolicy: {
    route: 'DELETE /idp/users/{id}/policies/{policyId}',
    summary: 'Revoke a policy',
    permissions: ['USER_POLICIES.REVOKE'],
    response: noContent('Revoked'),
  },
  grantUserManagedRole: {
    route: 'PUT /idp/users/{id}/managedRoles/{roleId}',
    summary: 'Grant a managed role',
    permissions: ['USER_ROLES.GRANT'],
    response: noContent('Granted'),
  },
  revokeUserManagedRole: {
    route: 'DELETE /idp/users/{id}/managedRoles/{roleId}',
    summary: 'Revoke a managed role',
    permissions: ['USER_ROLES.REVOKE'],
    response: noContent('Revoked'),
  },
  grantAdditionalProperties: {
    route: 'PUT /idp/users/{id}/additionalProperties/grant',
    summary: 'Set additional properties (string, number or empty object values)',
    permissions: ['USER.LIST'],
    request: { body: setAdditionalPropertiesRequest },
    response: noContent('Set'),
  },
  revokeAdditionalProperties: {
    route: 'PUT /idp/users/{id}/additionalProperties/revoke',
    summary: 'Remove additional properties',
    permissions: ['USER.LIST'],
    request: { body: removeAdditionalPropertiesRequest },
    response: noContent('Removed'),
  },
  addUserToGroup: {
    route: 'PUT /idp/users/{id}/userGroups/{userGroupId}',
    summary: 'Add the user to a user group',
    permissions: ['USER_GROUP.GRANT'],
    response: ok('The user with its groups', user),
  },
  removeUserFromGroup: {
    route: 'DELETE /idp/users/{id}/userGroups/{userGroupId}',
    summary: 'Remove the user from a user group',
    permissions: ['USER_GROUP.REVOKE'],
    response: noContent('Removed'),
  },
  resetUserMfa: {
    route: 'PUT /idp/users/{id}/resetMfa',
    summary: "Clear a user's TOTP secret so it enrolls again (400 when the organization has MFA disabled)",
    permissions: ['USER.UPDATE'],
    response: noContent('Reset'),
  },
  resetMyMfa: {
    route: 'PUT /idp/me/resetMfa',
    summary: "Clear the calling user's TOTP secret (an API client gets 400)",
    response: noContent('Reset'),
  },
  getMyUiPermissions: {
    route: 'GET /idp/me/ui-permissions',
    summary: 'UI permissions of the principal in the token',
    response: ok('UI permissions', minePermissions),
  },
  listAdditionalUserProperties: {
    route: 'GET /idp/additionalUserProperties',
    summary: 'Names of the additional properties in use in the organization',
    response: ok('Property names', additionalUserProperties),
  },
});
