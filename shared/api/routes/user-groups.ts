import { pagingQuery } from '../../schemas/common.js';
import {
  assignManagedRoleRequest,
  assignPolicyRequest,
  assignRoleRequest,
  createUserGroupRequest,
  updateUserGroupRequest,
  userGroupCount,
  userGroupEnvelope,
  userGroupList,
} from '../../schemas/user-groups.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

const changed = (description: string) => ({ status: 200 as const, description, body: userGroupEnvelope });

const assignment = <T extends 'roles' | 'policies' | 'managedRoles', A extends 'assign' | 'unassign'>(
  target: T,
  action: A,
) => ({
  route: `PUT /idp/userGroups/{id}/${target}/${action}` as const,
  summary: `${action === 'assign' ? 'Assign' : 'Unassign'} ${target === 'managedRoles' ? 'a managed role' : target === 'roles' ? 'a role' : 'a policy'}`,
  permissions:
    target === 'policies'
      ? [action === 'assign' ? ('USER_POLICIES.GRANT' as const) : ('USER_POLICIES.REVOKE' as const)]
      : [action === 'assign' ? ('USER_ROLES.GRANT' as const) : ('USER_ROLES.REVOKE' as const)],
  request: {
    body:
      target === 'roles'
        ? assignRoleRequest
        : target === 'policies'
          ? assignPolicyRequest
          : assignManagedRoleRequest,
  },
  response: changed('The user group'),
});

/** User groups (spec 4.2), for the STANDARD user type only. */
export const userGroupsRoutes = routeGroup('user-groups', { userTypes: ['STANDARD'] })({
  createUserGroup: {
    route: 'POST /idp/userGroups',
    summary: 'Create a user group (name unique case-insensitively, number unique when given)',
    permissions: ['USER_GROUP.ADD'],
    request: { body: createUserGroupRequest },
    response: {
      status: 201,
      description: 'Created; Location names it',
      body: userGroupEnvelope,
      location: true,
    },
  },
  listUserGroups: {
    route: 'GET /idp/userGroups/list',
    summary: 'User groups in creation order',
    permissions: ['USER_GROUP.READ'],
    request: { query: pagingQuery },
    response: ok('One page; Link rel="next" while more exist', userGroupList),
  },
  countUserGroups: {
    route: 'GET /idp/userGroups/count',
    summary: 'Number of user groups',
    permissions: ['USER_GROUP.READ'],
    response: ok('The count', userGroupCount),
  },
  getUserGroup: {
    route: 'GET /idp/userGroups/{id}',
    summary: 'One user group',
    permissions: ['USER_GROUP.READ'],
    response: ok('The user group', userGroupEnvelope),
  },
  updateUserGroup: {
    route: 'PATCH /idp/userGroups/{id}',
    summary: 'Change some fields of a user group',
    permissions: ['USER_GROUP.UPDATE'],
    request: { body: updateUserGroupRequest },
    response: changed('The updated user group'),
  },
  deleteUserGroup: {
    route: 'DELETE /idp/userGroups/{id}',
    summary: 'Delete a user group and remove it from all its members',
    permissions: ['USER_GROUP.DELETE'],
    response: noContent('Deleted'),
  },
  duplicateUserGroup: {
    route: 'POST /idp/userGroups/{id}/duplicate',
    summary: 'Copy a user group with its grants and members, named "Copy of <name>"',
    permissions: [
      'USER_GROUP.ADD',
      'USER_GROUP.READ',
      'USER_ROLES.GRANT',
      'USER_POLICIES.GRANT',
      'USER_GROUP.GRANT',
    ],
    response: changed('The new user group'),
  },
  assignUserGroupRole: assignment('roles', 'assign'),
  unassignUserGroupRole: assignment('roles', 'unassign'),
  assignUserGroupPolicy: assignment('policies', 'assign'),
  unassignUserGroupPolicy: assignment('policies', 'unassign'),
  assignUserGroupManagedRole: assignment('managedRoles', 'assign'),
  unassignUserGroupManagedRole: assignment('managedRoles', 'unassign'),
});
