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

const TARGET_NAMES = { roles: 'role', policies: 'policy', managedRoles: 'managed role' } as const;

const GRANT_ACTIONS = {
  roles: { assign: 'group.role.granted', unassign: 'group.role.revoked' },
  policies: { assign: 'group.policy.granted', unassign: 'group.policy.revoked' },
  managedRoles: { assign: 'group.managedRole.granted', unassign: 'group.managedRole.revoked' },
} as const;

const assignment = <T extends 'roles' | 'policies' | 'managedRoles', A extends 'assign' | 'unassign'>(
  target: T,
  action: A,
) => ({
  route: `PUT /idp/userGroups/{id}/${target}/${action}` as const,
  summary: `${action === 'assign' ? 'Assign' : 'Unassign'} a ${TARGET_NAMES[target]}`,
  description:
    action === 'assign'
      ? `The members hold it through the group (while the group is ACTIVE) in tokens issued afterwards. The ${TARGET_NAMES[target]} must be live in the organization (404 naming it); a group holds at most 100 of each kind (409). Answers the group.`
      : `The members no longer hold it through the group in tokens issued afterwards. One the group holds is removed even if it was archived since (it counts toward the group's 100 until then); one neither held nor live in the organization is 404 naming it. Answers the group.`,
  permissions:
    target === 'policies'
      ? [action === 'assign' ? ('USER_POLICIES.GRANT' as const) : ('USER_POLICIES.REVOKE' as const)]
      : [action === 'assign' ? ('USER_ROLES.GRANT' as const) : ('USER_ROLES.REVOKE' as const)],
  audit: [GRANT_ACTIONS[target][action]],
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
    description:
      'The name is unique case-insensitively, and the number unique when given (409). Answers 201 with `Location` and `{"userGroup": ...}`.',
    permissions: ['USER_GROUP.ADD'],
    audit: ['group.created'],
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
    description:
      'One page at a time (`page`, `pageSize`; `Link: <...>; rel="next"` while more exist), as `{"userGroups": [...]}`.',
    permissions: ['USER_GROUP.READ'],
    request: { query: pagingQuery },
    response: ok('One page; Link rel="next" while more exist', userGroupList),
  },
  countUserGroups: {
    route: 'GET /idp/userGroups/count',
    summary: 'Number of user groups',
    description:
      'The number of user groups of the organization, kept exact by the same writes that create and delete them.',
    permissions: ['USER_GROUP.READ'],
    response: ok('The count', userGroupCount),
  },
  getUserGroup: {
    route: 'GET /idp/userGroups/{id}',
    summary: 'One user group',
    description:
      'Reads one user group with its roles, managed roles, policies and status; a group of another organization is 404.',
    permissions: ['USER_GROUP.READ'],
    response: ok('The user group', userGroupEnvelope),
  },
  updateUserGroup: {
    route: 'PATCH /idp/userGroups/{id}',
    summary: 'Change some fields of a user group',
    description:
      'Changes only the fields given; the name and the number stay unique (409). An INACTIVE group grants nothing to its members.',
    permissions: ['USER_GROUP.UPDATE'],
    audit: ['group.updated'],
    request: { body: updateUserGroupRequest },
    response: changed('The updated user group'),
  },
  deleteUserGroup: {
    route: 'DELETE /idp/userGroups/{id}',
    summary: 'Delete a user group and remove it from all its members',
    description:
      'Removes the group from every member; what it granted stops counting in tokens issued afterwards.',
    permissions: ['USER_GROUP.DELETE'],
    audit: ['group.deleted'],
    response: noContent('Deleted'),
  },
  duplicateUserGroup: {
    route: 'POST /idp/userGroups/{id}/duplicate',
    summary: 'Copy a user group with its grants and members, named "Copy of <name>"',
    description:
      'Copies description, status, grants and members (not the number) into a new group named `Copy of <name>` (then `Copy of <name> (2)`, ...). Refused (409), with no copy left, when a member is in 100 groups already.',
    permissions: [
      'USER_GROUP.ADD',
      'USER_GROUP.READ',
      'USER_ROLES.GRANT',
      'USER_POLICIES.GRANT',
      'USER_GROUP.GRANT',
    ],
    audit: ['group.duplicated'],
    response: changed('The new user group'),
  },
  assignUserGroupRole: assignment('roles', 'assign'),
  unassignUserGroupRole: assignment('roles', 'unassign'),
  assignUserGroupPolicy: assignment('policies', 'assign'),
  unassignUserGroupPolicy: assignment('policies', 'unassign'),
  assignUserGroupManagedRole: assignment('managedRoles', 'assign'),
  unassignUserGroupManagedRole: assignment('managedRoles', 'unassign'),
});
