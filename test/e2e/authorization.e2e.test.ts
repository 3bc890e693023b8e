import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { groupPath, groupsApi, newRoleAs, useFixture, useService } from '../support/service.js';

/**
 * Access is computed from roles, groups and the default role when a token is issued, and
 * enforced on every request: a change shows in the next token. Each scenario runs in its own
 * organization and changes access only through the API.
 */
const service = useService();
const org = useFixture(() => service.freshOrganization());
const orgGroups = groupsApi(service, org);

const admin = (method: string, path: string, body?: unknown) =>
  service.call(method, path, { token: org.token, body });

/** Status of `POST /idp/roles` (needs ROLES.ADD) with `token`; each attempt a new name. */
const createRoleStatus = async (token: string) =>
  (await service.call('POST', '/idp/roles', { token, body: { name: `R ${randomUUID()}`, permissions: [] } }))
    .status;

const assignAdd = async (roleId: string) =>
  expect(
    (await admin('POST', `/idp/roles/${roleId}/permissions/assign`, { permissionIds: ['ROLES.ADD'] })).status,
  ).toBe(204);
const archive = async (roleId: string) =>
  expect((await admin('DELETE', `/idp/roles/${roleId}`)).status).toBe(204);

describe('an API client, through its role', () => {
  it('gets 403 without ROLES.ADD, succeeds once its role has it, and fails again once the role is archived', async () => {
    const {
      principalId: clientId,
      clientSecret,
      roleId,
      token: first,
    } = await service.callerWith(['ROLES.LIST'], { organization: org.orgId });
    expect(await createRoleStatus(first)).toBe(403);

    await assignAdd(roleId);
    // The token issued before the change keeps what it carried; the next one has the permission.
    expect(await createRoleStatus(first)).toBe(403);
    const second = await service.token(clientId, clientSecret);
    expect(await createRoleStatus(second)).toBe(204);

    await archive(roleId);
    expect(await createRoleStatus(await service.token(clientId, clientSecret))).toBe(403);
    // A token is a snapshot until it expires (documented): the earlier one still carries ROLES.ADD.
    expect(await createRoleStatus(second)).toBe(204);
  });
});

describe('a user, through an ACTIVE user group', () => {
  it('gains ROLES.ADD from its group, loses it while the group is INACTIVE, and when the role is archived', async () => {
    const userId = await service.createUser({ as: org });
    const roleId = await newRoleAs(service, org.token, ['ROLES.LIST']);
    const group = await orgGroups.newGroup({ name: `Group ${randomUUID()}` });
    expect((await admin('PUT', groupPath(group.id, '/roles/assign'), { roleId })).status).toBe(200);
    expect((await admin('PUT', `/idp/users/${userId}/userGroups/${group.id}`)).status).toBe(200);
    const userToken = () => service.userToken(userId, org.orgId);

    expect(await createRoleStatus(await userToken())).toBe(403);
    await assignAdd(roleId);
    expect(await createRoleStatus(await userToken())).toBe(204);

    expect((await admin('PATCH', groupPath(group.id), { status: 'INACTIVE' })).status).toBe(200);
    expect(await createRoleStatus(await userToken())).toBe(403);
    expect((await admin('PATCH', groupPath(group.id), { status: 'ACTIVE' })).status).toBe(200);
    expect(await createRoleStatus(await userToken())).toBe(204);

    await archive(roleId);
    expect(await createRoleStatus(await userToken())).toBe(403);
  });
});

describe('a new user, through the default role', () => {
  it('receives the default role, gains ROLES.ADD with it, and loses it when the role is archived', async () => {
    const roleId = await newRoleAs(service, org.token, ['ROLES.LIST']);
    expect((await admin('POST', '/idp/setDefaultRole', { roleId })).status).toBe(204);
    const userId = await service.createUser({ as: org });
    const userToken = () => service.userToken(userId, org.orgId);

    expect(await createRoleStatus(await userToken())).toBe(403);
    await assignAdd(roleId);
    expect(await createRoleStatus(await userToken())).toBe(204);

    await archive(roleId);
    expect(await createRoleStatus(await userToken())).toBe(403);
    // The archived role is no default any more: the next user receives no role at all.
    const later = await service.createUser({ as: org });
    expect((await admin('GET', `/idp/users/${later}`)).body).toMatchObject({ roles: [], managedRoles: [] });
  });

  it('also works with a managed role as the default', async () => {
    expect((await admin('POST', '/idp/setDefaultRole', { roleId: 'user-manager' })).status).toBe(204);
    const userId = await service.createUser({ as: org });
    const userToken = await service.userToken(userId, org.orgId);
    expect(await createRoleStatus(userToken)).toBe(403);
    expect((await service.call('GET', '/idp/users', { token: userToken })).status).toBe(200);
    expect((await admin('DELETE', '/idp/clearDefaultRole')).status).toBe(204);
  });
});
