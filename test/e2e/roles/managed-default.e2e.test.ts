import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { ALL_PERMISSION_IDS } from '../../../shared/domain/permission-catalogue.js';
import type { ApiDefaultRole, ApiError, ApiManagedRole, ApiUser, Caller } from '../../support/service.js';
import { errorFields, newRoleAs, permissionsWithout, useFixture, useService } from '../../support/service.js';

/** The seeded managed roles, and the default role new users receive. */
const service = useService();

// Not API_CLIENTS.READ: the client list holds every client's secret (docs/behaviour.md).
const READ_ONLY = [
  'PERMISSIONS.LIST',
  'PERMISSIONS.DETAILS',
  'ROLES.LIST',
  'ROLES.DETAILS',
  'DETAILED_PERMISSION.READ',
  'USER.LIST',
  'USER.DETAILS',
  'USER_GROUP.READ',
];
const USER_MANAGER = [
  'USER.LIST',
  'USER.ADD',
  'USER.DETAILS',
  'USER.UPDATE',
  'USER.DELETE',
  'USER_ROLES.GRANT',
  'USER_ROLES.REVOKE',
  'USER_GROUP.ADD',
  'USER_GROUP.READ',
  'USER_GROUP.UPDATE',
  'USER_GROUP.DELETE',
  'USER_GROUP.GRANT',
  'USER_GROUP.REVOKE',
];
const sorted = (values: readonly string[]) => [...values].sort();
const seeded = (id: string, permissions: readonly string[]) => ({
  id,
  createdAt: expect.any(Number),
  updatedAt: expect.any(Number),
  permissions: sorted(permissions),
  pluginPermissions: [],
});
/** Compares permissions as sets: the order inside a role is not part of the contract. */
const normalized = (role: ApiManagedRole) => ({ ...role, permissions: sorted(role.permissions) });

const foreign = useFixture(() => service.freshOrganization());

describe('GET /managedRoles and /managedRoles/{id}', () => {
  it('lists the three seeded managed roles with their exact permissions and no plugin permissions', async () => {
    const response = await service.call<ApiManagedRole[]>('GET', '/idp/managedRoles', {
      token: service.admin.token,
    });
    expect(response.status).toBe(200);
    expect(response.body.map(normalized)).toEqual([
      seeded('administrator', ALL_PERMISSION_IDS),
      seeded('read-only', READ_ONLY),
      seeded('user-manager', USER_MANAGER),
    ]);
  });

  it('answers each one by id, the same as the list', async () => {
    const list = (
      await service.call<ApiManagedRole[]>('GET', '/idp/managedRoles', { token: service.admin.token })
    ).body;
    for (const listed of list) {
      const response = await service.call<ApiManagedRole>('GET', `/idp/managedRoles/${listed.id}`, {
        token: service.admin.token,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(listed);
    }
  });

  it('answers 404 for an unknown managed role and for a normal role id', async () => {
    const roleId = await newRoleAs(service, service.admin.token);
    for (const id of ['super-admin', 'ADMINISTRATOR', roleId]) {
      const response = await service.call<ApiError>('GET', `/idp/managedRoles/${id}`, {
        token: service.admin.token,
      });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('Managed role not found');
    }
  });

  it('answers 403 without ROLES.LIST (list) and without ROLES.DETAILS (one)', async () => {
    const noList = (await service.callerWith(permissionsWithout('ROLES.LIST'))).token;
    const list = await service.call<ApiError>('GET', '/idp/managedRoles', { token: noList });
    expect(list.status).toBe(403);
    expect(list.body.message).toBe('Missing permission: ROLES.LIST');

    const noDetails = (await service.callerWith(permissionsWithout('ROLES.DETAILS'))).token;
    expect((await service.call('GET', '/idp/managedRoles', { token: noDetails })).status).toBe(200);
    const one = await service.call<ApiError>('GET', '/idp/managedRoles/read-only', { token: noDetails });
    expect(one.status).toBe(403);
    expect(one.body.message).toBe('Missing permission: ROLES.DETAILS');
  });
});

// Each test below runs in a fresh organization, whose default role starts unset.
const defaultRoleOf = async (org: Caller) => {
  const response = await service.call<ApiDefaultRole>('GET', '/idp/getDefaultRole', { token: org.token });
  expect(response.status).toBe(200);
  return response.body;
};
const setDefault = (org: Caller, body: unknown, as = org.token) =>
  service.call<ApiError>('POST', '/idp/setDefaultRole', { token: as, body });
const clearDefault = (org: Caller, as = org.token) =>
  service.call<ApiError>('DELETE', '/idp/clearDefaultRole', { token: as });

/** Creates a user through the API; answers its roles, managed roles and token permissions. */
const newUserGrants = async (org: Caller) => {
  const id = await service.createUser({ as: org });
  const user = (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: org.token })).body;
  return {
    roles: user.roles,
    managedRoles: user.managedRoles,
    permissions: decodeJwt(await service.userToken(id, org.orgId)).permissions,
  };
};
const NOTHING = { roles: [], managedRoles: [], permissions: [] };

describe('default role', () => {
  it('is {isStandardRole: null} without a roleId when none is set; new users get nothing', async () => {
    const org = await service.freshOrganization();
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: null });
    expect(await newUserGrants(org)).toEqual(NOTHING);
  });

  it('set to a normal role: isStandardRole true; new users (only) receive the role and its permissions', async () => {
    const org = await service.freshOrganization();
    const before = await service.createUser({ as: org });
    const roleId = await newRoleAs(service, org.token, ['USER.UPDATE']);
    const response = await setDefault(org, { roleId });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: true, roleId });
    expect(await newUserGrants(org)).toEqual({
      roles: [roleId],
      managedRoles: [],
      permissions: ['USER.DETAILS', 'USER.LIST', 'USER.UPDATE'],
    });
    const existing = await service.call<ApiUser>('GET', `/idp/users/${before}`, { token: org.token });
    expect(existing.body.roles).toEqual([]);
  });

  it('set to a managed role: isStandardRole false; new users receive it in managedRoles', async () => {
    const org = await service.freshOrganization();
    expect((await setDefault(org, { roleId: 'read-only' })).status).toBe(204);
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: false, roleId: 'read-only' });
    expect(await newUserGrants(org)).toEqual({
      roles: [],
      managedRoles: ['read-only'],
      permissions: sorted(READ_ONLY),
    });
  });

  it('a new setting replaces the previous one, and belongs to its organization only', async () => {
    const org = await service.freshOrganization();
    const other = await service.freshOrganization();
    const roleId = await newRoleAs(service, org.token);
    await setDefault(org, { roleId: 'user-manager' });
    expect((await setDefault(org, { roleId })).status).toBe(204);
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: true, roleId });
    expect((await setDefault(org, { roleId: 'user-manager' })).status).toBe(204);
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: false, roleId: 'user-manager' });
    expect(await defaultRoleOf(other)).toStrictEqual({ isStandardRole: null });
    expect(await newUserGrants(other)).toEqual(NOTHING);
  });

  it('answers 404 for an unknown id, an archived role and a role of another organization', async () => {
    const org = await service.freshOrganization();
    const current = await newRoleAs(service, org.token);
    await setDefault(org, { roleId: current });
    const archived = await newRoleAs(service, org.token);
    expect((await service.call('DELETE', `/idp/roles/${archived}`, { token: org.token })).status).toBe(204);
    const theirs = await newRoleAs(service, foreign.token);
    for (const roleId of ['no-such-role', archived, theirs]) {
      const response = await setDefault(org, { roleId });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('Role not found');
    }
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: true, roleId: current });
  });

  it('answers 400 for a malformed body', async () => {
    const org = await service.freshOrganization();
    const cases: [unknown, string[]][] = [
      [{}, ['body.roleId']],
      [{ roleId: 7 }, ['body.roleId']],
      [{ roleId: '' }, ['body.roleId']],
      [{ roleId: '../read-only' }, ['body.roleId']],
      [{ roleId: 'read-only', isStandardRole: false }, ['body.isStandardRole']],
      [['read-only'], ['body']],
    ];
    for (const [body, fields] of cases) {
      const response = await setDefault(org, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      // One field may carry several details (an empty id is both too short and not an id).
      expect([...new Set(errorFields(response))], JSON.stringify(body)).toEqual(fields);
    }
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: null });
  });

  it('DELETE /clearDefaultRole: 204, back to null, new users get nothing; repeating it is 204', async () => {
    const org = await service.freshOrganization();
    await setDefault(org, { roleId: 'administrator' });
    const response = await clearDefault(org);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: null });
    expect(await newUserGrants(org)).toEqual(NOTHING);
    expect((await clearDefault(org)).status).toBe(204);
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: null });
  });

  it('archiving the default role unsets it: null, and new users get nothing', async () => {
    const org = await service.freshOrganization();
    const roleId = await newRoleAs(service, org.token, ['USER.LIST']);
    await setDefault(org, { roleId });
    expect((await newUserGrants(org)).roles).toEqual([roleId]);
    expect((await service.call('DELETE', `/idp/roles/${roleId}`, { token: org.token })).status).toBe(204);
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: null });
    expect(await newUserGrants(org)).toEqual(NOTHING);
  });

  it('answers 403 without ROLES.UPDATE for set and clear, and without ROLES.LIST for get', async () => {
    const org = await service.freshOrganization();
    await setDefault(org, { roleId: 'read-only' });
    const noUpdate = (
      await service.callerWith(permissionsWithout('ROLES.UPDATE'), { organization: org.orgId })
    ).token;
    for (const response of [
      await setDefault(org, { roleId: 'administrator' }, noUpdate),
      await clearDefault(org, noUpdate),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.message).toBe('Missing permission: ROLES.UPDATE');
    }
    const noList = (await service.callerWith(permissionsWithout('ROLES.LIST'), { organization: org.orgId }))
      .token;
    const read = await service.call<ApiError>('GET', '/idp/getDefaultRole', { token: noList });
    expect(read.status).toBe(403);
    expect(read.body.message).toBe('Missing permission: ROLES.LIST');
    expect(await defaultRoleOf(org)).toStrictEqual({ isStandardRole: false, roleId: 'read-only' });
  });
});
