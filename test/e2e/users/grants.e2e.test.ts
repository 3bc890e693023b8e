import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { MAX_GRANTS_PER_HOLDER } from '../../../shared/domain/limits.js';
import { db, tableName } from '../../../shared/store/dynamo.js';
import { keys } from '../../../shared/store/keys.js';
import { archivePolicy } from '../../../shared/store/policy-repository.js';
import { archiveRole } from '../../../shared/store/role-repository.js';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import { errorFields, putTestPolicy, putTestRole, useFixture, useService } from '../../support/service.js';

/** Roles (by name or id), policies and managed roles granted to and revoked from users. */
const service = useService();

const put = (path: string) => service.call<ApiError>('PUT', path, { token: service.admin.token });
const remove = (path: string) => service.call<ApiError>('DELETE', path, { token: service.admin.token });
const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body;
const permissionsOf = async (id: string) => decodeJwt(await service.userToken(id)).permissions as string[];

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('roles', () => {
  const grant = (userId: string, role: string) =>
    put(`/idp/users/${userId}/roles/${encodeURIComponent(role)}/grant`);
  const revoke = (userId: string, role: string) =>
    put(`/idp/users/${userId}/roles/${encodeURIComponent(role)}/revoke`);

  it('grants by name, case-insensitively; a repeat is 204 and the role appears once', async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId, {
      name: 'Support Agents',
      permissions: ['ROLES.LIST'],
    });
    const first = await grant(id, 'Support Agents');
    expect(first.status).toBe(204);
    expect(first.body).toBeUndefined();
    expect((await grant(id, 'support AGENTS')).status).toBe(204);
    expect((await grant(id, role.id)).status).toBe(204);
    expect((await userOf(id)).roles).toEqual([role.id]);
    expect(await permissionsOf(id)).toEqual(['ROLES.LIST']);
  });

  it('grants by id and lists several roles sorted', async () => {
    const id = await service.createUser();
    const a = await putTestRole(service.organizationId);
    const b = await putTestRole(service.organizationId);
    expect((await grant(id, a.id)).status).toBe(204);
    expect((await grant(id, b.id)).status).toBe(204);
    expect((await userOf(id)).roles).toEqual([a.id, b.id].sort());
  });

  it('resolves the name before the id', async () => {
    const id = await service.createUser();
    const byId = await putTestRole(service.organizationId);
    const named = await putTestRole(service.organizationId, { name: byId.id });
    expect((await grant(id, byId.id)).status).toBe(204);
    expect((await userOf(id)).roles).toEqual([named.id]);
  });

  it('revokes by name and by id, idempotently', async () => {
    const id = await service.createUser();
    const a = await putTestRole(service.organizationId, { permissions: ['USER.LIST'] });
    const b = await putTestRole(service.organizationId);
    await grant(id, a.id);
    await grant(id, b.id);
    expect((await revoke(id, a.name.toUpperCase())).status).toBe(204);
    expect((await userOf(id)).roles).toEqual([b.id]);
    expect(await permissionsOf(id)).toEqual([]);
    expect((await revoke(id, b.id)).status).toBe(204);
    expect((await revoke(id, b.id)).status).toBe(204);
    expect((await userOf(id)).roles).toEqual([]);
  });

  it('answers 404 for an unknown role, an archived role and a role of another organization', async () => {
    const id = await service.createUser();
    const archived = await putTestRole(service.organizationId, { archived: true });
    const theirs = await putTestRole(foreign.orgId, { name: `Theirs ${Date.now()}` });
    for (const role of ['no-such-role', archived.id, archived.name, theirs.id, theirs.name]) {
      const response = await grant(id, role);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('Role not found');
    }
    for (const role of ['no-such-role', theirs.id, theirs.name]) {
      expect((await revoke(id, role)).status).toBe(404);
    }
    expect((await userOf(id)).roles).toEqual([]);
  });

  it(`answers 409 for a role beyond the ${MAX_GRANTS_PER_HOLDER} a user may hold; a held one is 204`, async () => {
    const id = await service.createUser();
    const [held, beyond] = [
      await putTestRole(service.organizationId),
      await putTestRole(service.organizationId),
    ];
    // The user holds the limit already: `held` and ids of roles that are not there any more.
    const others = Array.from({ length: MAX_GRANTS_PER_HOLDER - 1 }, () => randomUUID());
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.user(service.organizationId, id),
        UpdateExpression: 'ADD #roles :ids',
        ExpressionAttributeNames: { '#roles': 'roles' },
        ExpressionAttributeValues: { ':ids': new Set([held.id, ...others]) },
      }),
    );
    const refused = await grant(id, beyond.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      status: 409,
      error: 'Conflict',
      message: `A user holds at most ${MAX_GRANTS_PER_HOLDER} roles; revoke one first`,
    });
    expect((await grant(id, held.name)).status).toBe(204);
    expect((await getUser(service.organizationId, id, true))?.roles?.has(beyond.id)).toBe(false);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    const role = await putTestRole(service.organizationId);
    for (const userId of ['no-such-user', foreign.user.id]) {
      for (const response of [await grant(userId, role.id), await revoke(userId, role.id)]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User not found');
      }
    }
    const theirs = await service.call<ApiUser>('GET', `/idp/users/${foreign.user.id}`, {
      token: foreign.token,
    });
    expect(theirs.body.roles).toEqual([]);
  });

  it('answers 400 for a role name over 200 characters', async () => {
    const id = await service.createUser();
    const response = await grant(id, 'r'.repeat(201));
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.roleName']);
  });

  it('a role archived after the grant grants nothing any more', async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId, { permissions: ['USER.LIST'] });
    await grant(id, role.id);
    expect(await permissionsOf(id)).toEqual(['USER.LIST']);
    await archiveRole(service.organizationId, role.id);
    expect(await permissionsOf(id)).toEqual([]);
  });

  it("frees an archived role's name: revoking by that name is 404, by id it works", async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId);
    await grant(id, role.id);
    await archiveRole(service.organizationId, role.id);
    expect((await revoke(id, role.name)).status).toBe(404);
    expect((await revoke(id, role.id)).status).toBe(204);
    expect((await getUser(service.organizationId, id, true))?.roles).toBeUndefined();
  });

  it('no longer shows a role in User.roles once it is archived, but keeps the reference', async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId);
    const kept = await putTestRole(service.organizationId);
    await grant(id, role.id);
    await grant(id, kept.id);
    await archiveRole(service.organizationId, role.id);
    expect((await userOf(id)).roles).toEqual([kept.id]);
    const listed = await service.call<ApiUser[]>('GET', '/idp/users', { token: service.admin.token });
    expect(listed.body.find((user) => user.id === id)?.roles).toEqual([kept.id]);
    expect([...((await getUser(service.organizationId, id, true))?.roles ?? [])].sort()).toEqual(
      [role.id, kept.id].sort(),
    );
  });
});

describe('policies', () => {
  const path = (userId: string, policyId: string) => `/idp/users/${userId}/policies/${policyId}`;

  it('grants idempotently and revokes idempotently', async () => {
    const id = await service.createUser();
    const a = await putTestPolicy(service.organizationId);
    const b = await putTestPolicy(service.organizationId);
    expect((await put(path(id, a))).status).toBe(204);
    expect((await put(path(id, a))).status).toBe(204);
    expect((await put(path(id, b))).status).toBe(204);
    expect((await userOf(id)).policies).toEqual([a, b].sort());
    expect(decodeJwt(await service.userToken(id)).policies).toEqual([a, b].sort());
    const revoked = await remove(path(id, a));
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    expect((await remove(path(id, a))).status).toBe(204);
    expect((await userOf(id)).policies).toEqual([b]);
  });

  it('answers 404 on grant for an unknown, an archived and a foreign policy', async () => {
    const id = await service.createUser();
    const archived = await putTestPolicy(service.organizationId, { archived: true });
    const theirs = await putTestPolicy(foreign.orgId);
    for (const policyId of ['no-such-policy', archived, theirs]) {
      const response = await put(path(id, policyId));
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('Policy not found');
    }
    expect((await userOf(id)).policies).toEqual([]);
  });

  it('revoking a policy the user does not hold (even an unknown id) is 204 and changes nothing', async () => {
    const id = await service.createUser();
    const held = await putTestPolicy(service.organizationId);
    await put(path(id, held));
    expect((await remove(path(id, 'no-such-policy'))).status).toBe(204);
    expect((await userOf(id)).policies).toEqual([held]);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    const policy = await putTestPolicy(service.organizationId);
    for (const userId of ['no-such-user', foreign.user.id]) {
      for (const response of [await put(path(userId, policy)), await remove(path(userId, policy))]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User not found');
      }
    }
  });

  it('no longer shows a policy in User.policies once it is archived', async () => {
    const id = await service.createUser();
    const policy = await putTestPolicy(service.organizationId);
    await put(path(id, policy));
    await archivePolicy(service.organizationId, policy);
    expect((await userOf(id)).policies).toEqual([]);
  });
});

describe('managed roles', () => {
  const path = (userId: string, roleId: string) => `/idp/users/${userId}/managedRoles/${roleId}`;

  it('grants and revokes seeded managed roles idempotently; their permissions reach the token', async () => {
    const id = await service.createUser();
    expect((await put(path(id, 'user-manager'))).status).toBe(204);
    expect((await put(path(id, 'read-only'))).status).toBe(204);
    expect((await put(path(id, 'read-only'))).status).toBe(204);
    expect((await userOf(id)).managedRoles).toEqual(['read-only', 'user-manager']);
    expect(await permissionsOf(id)).toContain('USER.DELETE');
    expect((await remove(path(id, 'user-manager'))).status).toBe(204);
    expect((await remove(path(id, 'user-manager'))).status).toBe(204);
    expect((await userOf(id)).managedRoles).toEqual(['read-only']);
    const permissions = await permissionsOf(id);
    expect(permissions).toContain('USER.LIST');
    expect(permissions).not.toContain('USER.DELETE');
  });

  it('answers 404 for an unknown managed role, and for a normal role id', async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId);
    for (const roleId of ['super-admin', role.id]) {
      const response = await put(path(id, roleId));
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('Managed role not found');
    }
    expect((await userOf(id)).managedRoles).toEqual([]);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    for (const userId of ['no-such-user', foreign.user.id]) {
      for (const response of [
        await put(path(userId, 'read-only')),
        await remove(path(userId, 'read-only')),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User not found');
      }
    }
    const theirs = await service.call<ApiUser>('GET', `/idp/users/${foreign.user.id}`, {
      token: foreign.token,
    });
    expect(theirs.body.managedRoles).toEqual([]);
  });
});
