import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSION_IDS } from '../../../shared/domain/permission-catalogue.js';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiUser, RolesApi } from '../../support/service.js';
import {
  errorFields,
  groupPath,
  groupsApi,
  itemField,
  listedNames,
  newRole,
  nextMillisecond,
  ROLE_NOT_FOUND,
  readRole,
  rolesApi,
  useService,
} from '../../support/service.js';

/** PUT /roles/{id}, DELETE /roles/{id} (archive), POST /roles/{id}/permissions/assign and /revoke. */
const service = useService();
const groups = groupsApi(service, service.admin);
let api: RolesApi;
let theirs: RolesApi;

beforeAll(async () => {
  api = rolesApi(service, service.admin.token);
  theirs = rolesApi(service, (await service.freshOrganization()).token);
});

let counter = 0;
const role = (permissions: string[] = []) => newRole(api, `Changes ${++counter}`, permissions);
const archivedRole = async () => {
  const id = await role(['USER.LIST']);
  expect((await api.archive(id)).status).toBe(204);
  return id;
};
/** An unknown id, an archived role of this organization, a live role of another organization. */
const missingRoles = async () => [
  'no-such-role',
  await archivedRole(),
  await newRole(theirs, `Theirs ${++counter}`),
];

describe('PUT /roles/{id}', () => {
  it('replaces the permissions: 204, no body; dependents follow; updatedAt moves', async () => {
    const id = await role(['USER.LIST', 'ROLES.LIST']);
    const before = await readRole(api, id);
    await nextMillisecond();
    const response = await api.update(id, {
      permissions: ['ROLES.DELETE', 'API_CLIENTS.WRITE', 'ROLES.DELETE'],
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const after = await readRole(api, id);
    expect(after).toEqual({
      ...before,
      permissions: ['API_CLIENTS.WRITE', 'ROLES.DELETE'],
      dependentPermissions: ['API_CLIENTS.READ', 'ROLES.DETAILS', 'ROLES.LIST'],
      updatedAt: after.updatedAt,
    });
    expect(after.updatedAt).toBeGreaterThan(before.updatedAt);
  });

  it('replaces the permissions with none', async () => {
    const id = await role(['USER.UPDATE']);
    expect((await api.update(id, { permissions: [] })).status).toBe(204);
    const after = await readRole(api, id);
    expect([after.permissions, after.dependentPermissions]).toEqual([[], []]);
    expect((await api.update(id, { permissions: ['SSO.ADMIN'] })).status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual(['SSO.ADMIN']);
  });

  it('answers 400 for an unknown permission id and changes nothing', async () => {
    const id = await role(['USER.LIST']);
    const before = await readRole(api, id);
    const response = await api.update(id, { permissions: ['ROLES.LIST', 'USER.FLY'] });
    expect(response.status).toBe(400);
    expect(response.body.errorDetails).toEqual([
      {
        message: 'No permission with this id exists',
        field: itemField('permissions', 1),
        rejectedValue: 'USER.FLY',
      },
    ]);
    expect(await readRole(api, id)).toEqual(before);
  });

  it.each([
    ['missing permissions', {}, 'body.permissions'],
    ['a name (not updatable)', { permissions: [], name: 'Renamed' }, 'body.name'],
    ['permissions of the wrong type', { permissions: { a: 1 } }, 'body.permissions'],
  ])('answers 400 for %s', async (_label, body, field) => {
    const id = await role(['USER.LIST']);
    const response = await api.update(id, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await readRole(api, id)).permissions).toEqual(['USER.LIST']);
  });

  it('answers 404 for an unknown, an archived and a foreign role; the foreign one is unchanged', async () => {
    const missing = await missingRoles();
    for (const id of missing) {
      const response = await api.update(id, { permissions: ['SSO.ADMIN'] });
      expect(response.status, id).toBe(404);
      expect(response.body).toMatchObject(ROLE_NOT_FOUND);
    }
    expect((await readRole(theirs, missing[2] as string)).permissions).toEqual([]);
  });
});

describe('DELETE /roles/{id}', () => {
  it('archives: 204; then unreadable, unlisted, not archivable again', async () => {
    const id = await role(['USER.LIST']);
    const name = (await readRole(api, id)).name;
    const response = await api.archive(id);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    for (const again of [await api.get(id), await api.archive(id)]) {
      expect(again.status).toBe(404);
      expect(again.body).toMatchObject(ROLE_NOT_FOUND);
    }
    const listed = await api.list();
    expect(listed.body.map((r) => r.id)).not.toContain(id);
    expect(await listedNames(api)).not.toContain(name);
  });

  it('answers 404 for an unknown role and a role of another organization, which stays', async () => {
    const [unknown, , foreignId] = await missingRoles();
    for (const id of [unknown, foreignId] as string[]) {
      const response = await api.archive(id);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject(ROLE_NOT_FOUND);
    }
    expect((await theirs.get(foreignId as string)).status).toBe(200);
  });

  it('an archived role can no longer be granted to a user nor assigned to a group', async () => {
    const id = await role();
    const name = (await readRole(api, id)).name;
    await api.archive(id);
    const userId = await service.createUser();
    for (const path of [id, encodeURIComponent(name)]) {
      const response = await service.call('PUT', `/idp/users/${userId}/roles/${path}/grant`, {
        token: service.admin.token,
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject(ROLE_NOT_FOUND);
    }
    const group = await groups.newGroup({ name: `Archived grant ${counter}` });
    const assigned = await service.call('PUT', groupPath(group.id, '/roles/assign'), {
      token: service.admin.token,
      body: { roleId: id },
    });
    expect(assigned.status).toBe(404);
    expect(assigned.body).toMatchObject(ROLE_NOT_FOUND);
    expect((await groups.get(group.id)).body.userGroup.roles).toEqual([]);
  });

  it('hides the role from holders and their tokens; the stored user keeps the reference', async () => {
    const gone = await role(['USER_GROUP.READ']);
    const kept = await role(['USER.LIST']);
    const userId = await service.createUser();
    for (const id of [gone, kept]) {
      const granted = await service.call('PUT', `/idp/users/${userId}/roles/${id}/grant`, {
        token: service.admin.token,
      });
      expect(granted.status).toBe(204);
    }
    const group = await groups.newGroup({ name: `Holders ${counter}` });
    for (const id of [gone, kept]) {
      const assigned = await service.call('PUT', groupPath(group.id, '/roles/assign'), {
        token: service.admin.token,
        body: { roleId: id },
      });
      expect(assigned.status).toBe(200);
    }
    await groups.addMember(userId, group.id);
    const permissions = async () => decodeJwt(await service.userToken(userId)).permissions;
    expect(await permissions()).toEqual(['USER.LIST', 'USER_GROUP.READ']);

    expect((await api.archive(gone)).status).toBe(204);
    const user = await service.call<ApiUser>('GET', `/idp/users/${userId}`, { token: service.admin.token });
    expect(user.body.roles).toEqual([kept]);
    expect((await groups.get(group.id)).body.userGroup.roles).toEqual([kept]);
    expect([...((await getUser(service.organizationId, userId, true))?.roles ?? [])].sort()).toEqual(
      [gone, kept].sort(),
    );
    expect(await permissions()).toEqual(['USER.LIST']);
  });
});

describe('POST /roles/{id}/permissions/assign and /revoke', () => {
  it('assign adds, revoke removes; both answer 204 without body and move updatedAt', async () => {
    const id = await role(['USER.LIST']);
    const created = await readRole(api, id);
    await nextMillisecond();
    const assigned = await api.change(id, 'assign', ['ROLES.UPDATE', 'SSO.ADMIN']);
    expect(assigned.status).toBe(204);
    expect(assigned.body).toBeUndefined();
    const afterAssign = await readRole(api, id);
    expect(afterAssign).toEqual({
      ...created,
      permissions: ['ROLES.UPDATE', 'SSO.ADMIN', 'USER.LIST'],
      dependentPermissions: ['PERMISSIONS.LIST', 'ROLES.DETAILS', 'ROLES.LIST'],
      updatedAt: afterAssign.updatedAt,
    });
    expect(afterAssign.updatedAt).toBeGreaterThan(created.updatedAt);

    await nextMillisecond();
    const revoked = await api.change(id, 'revoke', ['ROLES.UPDATE', 'USER.LIST']);
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    const afterRevoke = await readRole(api, id);
    expect(afterRevoke).toEqual({
      ...afterAssign,
      permissions: ['SSO.ADMIN'],
      dependentPermissions: [],
      updatedAt: afterRevoke.updatedAt,
    });
    expect(afterRevoke.updatedAt).toBeGreaterThan(afterAssign.updatedAt);
  });

  it('is idempotent: repeats are 204 and keep one copy; revoking what is not held is 204', async () => {
    const id = await role();
    expect((await api.change(id, 'revoke', ['USER.LIST'])).status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual([]);
    for (let i = 0; i < 2; i++)
      expect((await api.change(id, 'assign', ['USER.ADD', 'USER.ADD'])).status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual(['USER.ADD']);
    expect((await api.change(id, 'revoke', ['ROLES.LIST'])).status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual(['USER.ADD']);
    for (let i = 0; i < 2; i++) expect((await api.change(id, 'revoke', ['USER.ADD'])).status).toBe(204);
    const emptied = await readRole(api, id);
    expect([emptied.permissions, emptied.dependentPermissions]).toEqual([[], []]);
  });

  it.each(['assign', 'revoke'] as const)('%s of an empty list is 204 and changes nothing', async (action) => {
    const id = await role(['USER.LIST']);
    const response = await api.change(id, action, []);
    expect(response.status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual(['USER.LIST']);
  });

  it('revoke takes ids the catalogue does not have (it may have dropped them): 204, the others removed', async () => {
    const id = await role(['USER.LIST', 'SSO.ADMIN']);
    expect((await api.change(id, 'revoke', ['SSO.ADMIN', 'NOT.APERMISSION'])).status).toBe(204);
    expect((await readRole(api, id)).permissions).toEqual(['USER.LIST']);
  });

  it.each(['assign'] as const)(
    '%s answers 400 for an unknown id, naming it, and changes nothing',
    async (action) => {
      const id = await role(['USER.LIST']);
      const response = await api.change(id, action, ['USER.LIST', 'SSO.ADMIN', 'NOT.APERMISSION']);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ status: 400, message: 'Unknown permission ids' });
      expect(response.body.errorDetails).toEqual([
        {
          message: 'No permission with this id exists',
          field: itemField('permissionIds', 2),
          rejectedValue: 'NOT.APERMISSION',
        },
      ]);
      expect((await readRole(api, id)).permissions).toEqual(['USER.LIST']);
    },
  );

  it.each([
    ['missing permissionIds', {}, 'body.permissionIds'],
    ['an unknown property', { permissionIds: [], permissions: [] }, 'body.permissions'],
  ])('answers 400 for %s', async (_label, body, field) => {
    const id = await role();
    const response = await service.call('POST', `/idp/roles/${id}/permissions/assign`, {
      token: service.admin.token,
      body,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it.each(['assign', 'revoke'] as const)(
    '%s answers 404 for an unknown, archived or foreign role, even with an empty list',
    async (action) => {
      const missing = await missingRoles();
      for (const id of missing) {
        for (const ids of [['USER.LIST'], []]) {
          const response = await api.change(id, action, ids);
          expect(response.status, `${id} ${ids}`).toBe(404);
          expect(response.body).toMatchObject(ROLE_NOT_FOUND);
        }
      }
      expect((await readRole(theirs, missing[2] as string)).permissions).toEqual([]);
    },
  );

  it('keeps every one of 20 parallel assigns, and applies 10 parallel revokes', async () => {
    const id = await role();
    const twenty = ALL_PERMISSION_IDS.slice(0, 20);
    expect(twenty).toHaveLength(20);
    const assigned = await Promise.all(twenty.map((permission) => api.change(id, 'assign', [permission])));
    expect(assigned.map((response) => response.status)).toEqual(Array(20).fill(204));
    expect((await readRole(api, id)).permissions).toEqual([...twenty].sort());

    const revoked = await Promise.all(
      twenty.slice(0, 10).map((permission) => api.change(id, 'revoke', [permission])),
    );
    expect(revoked.map((response) => response.status)).toEqual(Array(10).fill(204));
    expect((await readRole(api, id)).permissions).toEqual(twenty.slice(10).sort());
  });
});
