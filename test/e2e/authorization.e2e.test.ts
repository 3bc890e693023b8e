import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient } from '../support/fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { createUserWith, uniqueEmail } from '../support/user-fixtures.js';
import { freshOrganization, groupPath, newGroup } from '../support/user-group-fixtures.js';

/**
 * Access is computed from roles, groups and the default role when a token is issued, and
 * enforced on every request: a change shows in the next token. Each scenario runs in its own
 * organization and changes access only through the API.
 */
let service: TestService;
let org: Awaited<ReturnType<typeof freshOrganization>>;

beforeAll(async () => {
  service = await startTestService();
  org = await freshOrganization(service);
});
afterAll(() => service?.close());

const admin = (method: string, path: string, body?: unknown) =>
  service.call(method, path, { token: org.token, body });

/** Status of `POST /idp/roles` (needs ROLES.ADD) with `token`; each attempt a new name. */
const createRoleStatus = async (token: string) =>
  (await service.call('POST', '/idp/roles', { token, body: { name: `R ${randomUUID()}`, permissions: [] } }))
    .status;

/** A role created through the API with `permissions`; answers its id. */
const newRole = async (permissions: string[]): Promise<string> => {
  const response = await admin('POST', '/idp/roles', { name: `Role ${randomUUID()}`, permissions });
  expect(response.status).toBe(204);
  return (response.headers.get('location') as string).split('/').pop() as string;
};

const assignAdd = async (roleId: string) =>
  expect(
    (await admin('POST', `/idp/roles/${roleId}/permissions/assign`, { permissionIds: ['ROLES.ADD'] })).status,
  ).toBe(204);
const archive = async (roleId: string) =>
  expect((await admin('DELETE', `/idp/roles/${roleId}`)).status).toBe(204);

describe('an API client, through its role', () => {
  it('gets 403 without ROLES.ADD, succeeds once its role has it, and fails again once the role is archived', async () => {
    const { clientId, clientSecret, roleId } = await createTestClient(org.orgId, ['ROLES.LIST']);
    const first = await service.token(clientId, clientSecret);
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
    const userId = await createUserWith(service, org.token, uniqueEmail('member'));
    const roleId = await newRole(['ROLES.LIST']);
    const group = await newGroup(service, org.token, { name: `Group ${randomUUID()}` });
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
    const roleId = await newRole(['ROLES.LIST']);
    expect((await admin('POST', '/idp/setDefaultRole', { roleId })).status).toBe(204);
    const userId = await createUserWith(service, org.token, uniqueEmail('newcomer'));
    const userToken = () => service.userToken(userId, org.orgId);

    expect(await createRoleStatus(await userToken())).toBe(403);
    await assignAdd(roleId);
    expect(await createRoleStatus(await userToken())).toBe(204);

    await archive(roleId);
    expect(await createRoleStatus(await userToken())).toBe(403);
    // The archived role is no default any more: the next user receives no role at all.
    const later = await createUserWith(service, org.token, uniqueEmail('later'));
    expect((await admin('GET', `/idp/users/${later}`)).body).toMatchObject({ roles: [], managedRoles: [] });
  });

  it('also works with a managed role as the default', async () => {
    expect((await admin('POST', '/idp/setDefaultRole', { roleId: 'user-manager' })).status).toBe(204);
    const userId = await createUserWith(service, org.token, uniqueEmail('managed'));
    const userToken = await service.userToken(userId, org.orgId);
    expect(await createRoleStatus(userToken)).toBe(403);
    expect((await service.call('GET', '/idp/users', { token: userToken })).status).toBe(200);
    expect((await admin('DELETE', '/idp/clearDefaultRole')).status).toBe(204);
  });
});
