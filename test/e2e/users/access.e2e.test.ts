import { beforeAll, describe, expect, it } from 'vitest';
import { userPasswordsRoutes } from '../../../shared/api/routes/user-passwords.js';
import { userPicturesRoutes } from '../../../shared/api/routes/user-pictures.js';
import { usersRoutes } from '../../../shared/api/routes/users.js';
import { hashPassword } from '../../../shared/auth/passwords.js';
import { MANAGED_ROLES, type PermissionId } from '../../../shared/domain/permission-catalogue.js';
import { updateUserAttributes } from '../../../shared/store/user-repository.js';
import type { ApiError } from '../../support/service.js';
import {
  callersByPermissions,
  permissionsWithout,
  putTestPolicy,
  putTestRole,
  putTestUserGroup,
  uniqueEmail,
  uploadPicture,
  useFixture,
  useService,
} from '../../support/service.js';

/**
 * Who may call each of the user operations: 401 without a token, 403 with every permission
 * except the required one (and everything implying it), success with exactly that permission.
 */
const service = useService();
const READ_ONLY_PERMISSIONS = MANAGED_ROLES.find((role) => role.id === 'read-only')
  ?.permissions as PermissionId[];
// MFA enabled, so resetUserMfa can succeed with exactly USER.UPDATE.
const admin = useFixture(() => service.freshOrganization({ mfaEnabled: true }));
const ids = { target: '', self: '', other: '', role: '', policy: '', group: '' };

beforeAll(async () => {
  ids.target = await service.createUser({ as: admin });
  ids.self = await service.createUser({ as: admin });
  ids.other = await service.createUser({ as: admin });
  ids.role = (await putTestRole(admin.orgId)).id;
  ids.policy = await putTestPolicy(admin.orgId);
  ids.group = await putTestUserGroup(admin.orgId);
});

interface Operation {
  name: string;
  method: string;
  path: () => string;
  body?: () => unknown;
  permission?: PermissionId;
  success?: number;
  /** What the operation gives, which the caller must hold too (docs/behaviour.md, "Granting"). */
  alsoHeld?: readonly PermissionId[];
}

const user =
  (suffix = '') =>
  () =>
    `/idp/users/${ids.target}${suffix}`;

const permissioned: Operation[] = [
  { name: 'listUsers', method: 'GET', path: () => '/idp/users', permission: 'USER.LIST', success: 200 },
  {
    name: 'searchUsers',
    method: 'GET',
    path: () => '/idp/users/search?namePrefix=a',
    permission: 'USER.LIST',
    success: 200,
  },
  {
    name: 'createUser',
    method: 'POST',
    path: () => '/idp/users',
    body: () => ({ email: uniqueEmail(), name: 'New', userType: 'STANDARD' }),
    permission: 'USER.ADD',
    success: 204,
  },
  { name: 'getUser', method: 'GET', path: user(), permission: 'USER.DETAILS', success: 200 },
  {
    name: 'listUserPasskeys',
    method: 'GET',
    path: user('/passkeys'),
    permission: 'USER.DETAILS',
    success: 200,
  },
  {
    name: 'deleteUserPasskey',
    method: 'DELETE',
    // A passkey the user does not hold: past the permission check, the answer is 404.
    path: user(`/passkeys/${'a'.repeat(64)}`),
    permission: 'USER.UPDATE',
    success: 404,
  },
  {
    name: 'listUserSsoLinks',
    method: 'GET',
    path: user('/sso-links'),
    permission: 'USER.DETAILS',
    success: 200,
  },
  {
    name: 'deleteUserSsoLink',
    method: 'DELETE',
    // A provider the user is not linked to: past the permission check, the answer is 404.
    path: user('/sso-links/no-such-provider'),
    permission: 'USER.UPDATE',
    success: 404,
  },
  {
    name: 'updateUser',
    method: 'PUT',
    path: user(),
    body: () => ({ name: 'Renamed' }),
    permission: 'USER.UPDATE',
    success: 200,
  },
  {
    name: 'resendJoinEmail',
    method: 'PUT',
    path: user('/resendJoinEmail'),
    permission: 'USER.ADD',
    success: 204,
  },
  {
    name: 'setUserStatus',
    method: 'PUT',
    path: user('/setUserStatus'),
    body: () => ({ userStatus: 'ACTIVE' }),
    permission: 'USER.DELETE',
    success: 204,
  },
  {
    name: 'setUserType',
    method: 'PUT',
    path: user('/userType/standard'),
    permission: 'USER.UPDATE',
    success: 204,
  },
  {
    name: 'grantUserRole',
    method: 'PUT',
    path: () => `/idp/users/${ids.target}/roles/${ids.role}/grant`,
    permission: 'USER_ROLES.GRANT',
    success: 204,
  },
  {
    name: 'revokeUserRole',
    method: 'PUT',
    path: () => `/idp/users/${ids.target}/roles/${ids.role}/revoke`,
    permission: 'USER_ROLES.REVOKE',
    success: 204,
  },
  {
    name: 'grantUserPolicy',
    method: 'PUT',
    path: () => `/idp/users/${ids.target}/policies/${ids.policy}`,
    permission: 'USER_POLICIES.GRANT',
    success: 204,
  },
  {
    name: 'revokeUserPolicy',
    method: 'DELETE',
    path: () => `/idp/users/${ids.target}/policies/${ids.policy}`,
    permission: 'USER_POLICIES.REVOKE',
    success: 204,
  },
  {
    name: 'grantUserManagedRole',
    method: 'PUT',
    path: user('/managedRoles/read-only'),
    permission: 'USER_ROLES.GRANT',
    success: 204,
    alsoHeld: READ_ONLY_PERMISSIONS,
  },
  {
    name: 'revokeUserManagedRole',
    method: 'DELETE',
    path: user('/managedRoles/read-only'),
    permission: 'USER_ROLES.REVOKE',
    success: 204,
  },
  {
    name: 'grantAdditionalProperties',
    method: 'PUT',
    path: user('/additionalProperties/grant'),
    body: () => ({ additionalProperties: { level: 3 } }),
    permission: 'USER.LIST',
    success: 204,
  },
  {
    name: 'revokeAdditionalProperties',
    method: 'PUT',
    path: user('/additionalProperties/revoke'),
    body: () => ({ propertiesToRemove: ['level'] }),
    permission: 'USER.LIST',
    success: 204,
  },
  {
    name: 'addUserToGroup',
    method: 'PUT',
    path: () => `/idp/users/${ids.target}/userGroups/${ids.group}`,
    permission: 'USER_GROUP.GRANT',
    success: 200,
  },
  {
    name: 'removeUserFromGroup',
    method: 'DELETE',
    path: () => `/idp/users/${ids.target}/userGroups/${ids.group}`,
    permission: 'USER_GROUP.REVOKE',
    success: 204,
  },
  { name: 'resetUserMfa', method: 'PUT', path: user('/resetMfa'), permission: 'USER.UPDATE', success: 204 },
  {
    name: 'endUserSessions',
    method: 'PUT',
    path: user('/endSessions'),
    permission: 'USER.UPDATE',
    success: 204,
  },
];

const withoutPermission: Operation[] = [
  { name: 'uploadUserPicture', method: 'PUT', path: user('/picture') },
  { name: 'getUserPicture', method: 'GET', path: user('/picture') },
  {
    name: 'changePassword',
    method: 'PUT',
    path: user('/changePassword'),
    body: () => ({ currentPassword: 'a', newPassword: 'b', confirmPassword: 'b' }),
  },
  { name: 'resetMyMfa', method: 'PUT', path: () => '/idp/me/resetMfa' },
  { name: 'endMySessions', method: 'PUT', path: () => '/idp/me/endSessions' },
  { name: 'getMyUiPermissions', method: 'GET', path: () => '/idp/me/ui-permissions' },
  { name: 'listAdditionalUserProperties', method: 'GET', path: () => '/idp/additionalUserProperties' },
];

const call = (operation: Operation, token?: string) =>
  service.call<ApiError>(operation.method, operation.path(), {
    ...(token ? { token } : {}),
    ...(operation.body ? { body: operation.body() } : {}),
  });

/** The users' operations (spec 4.1), their pictures' included. */
const userRoutes = { ...usersRoutes, ...userPasswordsRoutes, ...userPicturesRoutes };

it('covers exactly the 31 operations of the users, passwords and pictures route tables', () => {
  const covered = [...permissioned, ...withoutPermission].map((operation) => operation.name).sort();
  expect(covered).toEqual(Object.keys(userRoutes).sort());
  expect(covered).toHaveLength(31);
  for (const operation of permissioned) {
    const route = userRoutes[operation.name as keyof typeof userRoutes];
    expect([route.method, route.permissions]).toEqual([operation.method, [operation.permission]]);
  }
});

describe('without a token', () => {
  it.each([...permissioned, ...withoutPermission])('$name answers 401', async (operation) => {
    const response = await call(operation);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthorized' });
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('permissions', () => {
  const callerFor = callersByPermissions((permissions) =>
    service.callerWith(permissions, { organization: admin.orgId }),
  );

  it.each(permissioned)('$name answers 403 with every permission but $permission', async (operation) => {
    const permission = operation.permission as PermissionId;
    const { token } = await callerFor(permissionsWithout(permission));
    const response = await call(operation, token);
    expect(response.status).toBe(403);
    expect(response.body.message).toBe(`Missing permission: ${permission}`);
  });

  it.each(permissioned)('$name answers $success with exactly $permission', async (operation) => {
    const permission = operation.permission as PermissionId;
    const response = await call(
      operation,
      (await callerFor([permission, ...(operation.alsoHeld ?? [])])).token,
    );
    expect(response.status).toBe(operation.success);
  });
});

describe('operations on oneself', () => {
  it('updateUser and uploadUserPicture: the user itself needs no permission, another user needs USER.UPDATE', async () => {
    const selfToken = await service.userToken(ids.self, admin.orgId);
    const own = await service.call('PUT', `/idp/users/${ids.self}`, {
      token: selfToken,
      body: { name: 'Me' },
    });
    expect(own.status).toBe(200);
    expect((await uploadPicture(service, ids.self, { token: selfToken })).status).toBe(204);

    const foreign = await service.call<ApiError>('PUT', `/idp/users/${ids.other}`, {
      token: selfToken,
      body: { name: 'Not me' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe('Missing permission: USER.UPDATE');
    const picture = await uploadPicture(service, ids.other, { token: selfToken });
    expect(picture.status).toBe(403);
    expect(picture.body?.message).toBe('Missing permission: USER.UPDATE');
    const otherUser = await service.call<{ name: string }>('GET', `/idp/users/${ids.other}`, {
      token: admin.token,
    });
    expect(otherUser.body.name).toBe('Test User');
    expect(
      (
        await uploadPicture(service, ids.other, {
          token: (await service.callerWith(['USER.UPDATE'], { organization: admin.orgId })).token,
        })
      ).status,
    ).toBe(204);
  });

  it('changePassword: only the user itself, never another user or a client with every permission', async () => {
    await updateUserAttributes(admin.orgId, ids.self, {
      passwordHash: await hashPassword('old password 123'),
    });
    const body = {
      currentPassword: 'old password 123',
      newPassword: 'new password 456',
      confirmPassword: 'new password 456',
    };
    const byOther = await service.call<ApiError>('PUT', `/idp/users/${ids.self}/changePassword`, {
      token: await service.userToken(ids.other, admin.orgId),
      body,
    });
    expect(byOther.status).toBe(403);
    expect(byOther.body.message).toBe('Only the user itself may do this');
    const byAdmin = await service.call<ApiError>('PUT', `/idp/users/${ids.self}/changePassword`, {
      token: admin.token,
      body,
    });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.message).toBe('Only the user itself may do this');
    const bySelf = await service.call('PUT', `/idp/users/${ids.self}/changePassword`, {
      token: await service.userToken(ids.self, admin.orgId),
      body,
    });
    expect(bySelf.status).toBe(204);
  });

  it('getUserPicture, getMyUiPermissions and listAdditionalUserProperties need no permission', async () => {
    const { token } = await service.callerWith([], { organization: admin.orgId });
    await uploadPicture(service, ids.self, { token: await service.userToken(ids.self, admin.orgId) });
    const picture = await fetch(`${service.baseUrl}/idp/users/${ids.self}/picture`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(picture.status).toBe(200);
    expect(picture.headers.get('content-type')).toBe('image/png');
    const ui = await service.call('GET', '/idp/me/ui-permissions', { token });
    expect(ui.status).toBe(200);
    expect(ui.body).toEqual({ uiPermissions: [], pluginsUIPermissions: {} });
    const names = await service.call('GET', '/idp/additionalUserProperties', { token });
    expect(names.status).toBe(200);
    expect(names.body).toEqual({ additionalProperties: [] });
  });

  it('resetMyMfa needs no permission: a user without grants may, an API client gets 400', async () => {
    const user = await service.call('PUT', '/idp/me/resetMfa', {
      token: await service.userToken(ids.other, admin.orgId),
    });
    expect(user.status).toBe(204);
    const client = await service.call<ApiError>('PUT', '/idp/me/resetMfa', {
      token: (await service.callerWith([], { organization: admin.orgId })).token,
    });
    expect(client.status).toBe(400);
    expect(client.body.message).toBe('Only a user can reset its own MFA; this token is an API client');
  });
});
