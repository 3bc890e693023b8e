import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  errorFields,
  getItem,
  putTestRole,
  putTestUserGroup,
  uniqueEmail,
  useFixture,
  useService,
} from '../../support/service.js';

/** User-group membership and additional properties. */
const service = useService();

const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body;

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('user groups', () => {
  const path = (userId: string, groupId: string) => `/idp/users/${userId}/userGroups/${groupId}`;
  const join = (userId: string, groupId: string) =>
    service.call<ApiUser & ApiError>('PUT', path(userId, groupId), { token: service.admin.token });
  const leave = (userId: string, groupId: string) =>
    service.call<ApiError>('DELETE', path(userId, groupId), { token: service.admin.token });
  const member = (groupId: string, userId: string) =>
    getItem(keys.groupMember(service.organizationId, groupId, userId));

  it('adds the user: 200 with the User listing the group, and writes the membership item', async () => {
    const email = uniqueEmail();
    const id = await service.createUser({ email, name: 'Member' });
    const group = await putTestUserGroup(service.organizationId);
    const response = await join(id, group);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id, email, name: 'Member', userGroups: [group] });
    expect(await member(group, id)).toMatchObject({
      userId: id,
      groupId: group,
      addedAt: expect.any(Number),
    });

    const again = await join(id, group);
    expect(again.status).toBe(200);
    expect(again.body.userGroups).toEqual([group]);
    const second = await putTestUserGroup(service.organizationId);
    expect((await join(id, second)).body.userGroups).toEqual([group, second].sort());
    expect((await userOf(id)).userGroups).toEqual([group, second].sort());
  });

  it('removes the user: 204, the group leaves userGroups and the membership item disappears', async () => {
    const id = await service.createUser();
    const group = await putTestUserGroup(service.organizationId);
    await join(id, group);
    const response = await leave(id, group);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await userOf(id)).userGroups).toEqual([]);
    expect(await member(group, id)).toBeUndefined();
    expect((await leave(id, group)).status).toBe(204);
  });

  it('an ACTIVE group passes on its roles, an INACTIVE one does not', async () => {
    const id = await service.createUser();
    const role = await putTestRole(service.organizationId, { permissions: ['ROLES.LIST'] });
    const active = await putTestUserGroup(service.organizationId, { roles: [role.id] });
    const inactive = await putTestUserGroup(service.organizationId, {
      status: 'INACTIVE',
      managedRoles: ['read-only'],
    });
    await join(id, active);
    await join(id, inactive);
    expect(decodeJwt(await service.userToken(id)).permissions).toEqual(['ROLES.LIST']);
    await leave(id, active);
    expect(decodeJwt(await service.userToken(id)).permissions).toEqual([]);
  });

  it('answers 404 for an unknown group and for a group of another organization', async () => {
    const id = await service.createUser();
    const theirs = await putTestUserGroup(foreign.orgId);
    for (const group of ['no-such-group', theirs]) {
      const response = await join(id, group);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
      expect(await member(group, id)).toBeUndefined();
    }
    expect((await userOf(id)).userGroups).toEqual([]);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    const group = await putTestUserGroup(service.organizationId);
    for (const userId of ['no-such-user', foreign.user.id]) {
      for (const response of [await join(userId, group), await leave(userId, group)]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User not found');
      }
      expect(await member(group, userId)).toBeUndefined();
    }
  });
});

describe('additional properties', () => {
  const grant = (id: string, additionalProperties: unknown) =>
    service.call<ApiError>('PUT', `/idp/users/${id}/additionalProperties/grant`, {
      token: service.admin.token,
      body: { additionalProperties },
    });
  const revoke = (id: string, propertiesToRemove: unknown) =>
    service.call<ApiError>('PUT', `/idp/users/${id}/additionalProperties/revoke`, {
      token: service.admin.token,
      body: { propertiesToRemove },
    });
  const names = async () =>
    (
      await service.call<{ additionalProperties: string[] }>('GET', '/idp/additionalUserProperties', {
        token: service.admin.token,
      })
    ).body.additionalProperties;
  const stored = async (id: string) =>
    (await getUser(service.organizationId, id, true))?.additionalProperties;

  it('starts with no names in use', async () => {
    expect(await names()).toEqual([]);
  });

  it('sets string, number and empty-object values and lists the names in use', async () => {
    const id = await service.createUser();
    const response = await grant(id, { costCenter: 'CC-7', level: 3.5, badge: {} });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await stored(id)).toEqual({ costCenter: 'CC-7', level: 3.5, badge: {} });
    expect(await names()).toEqual(['badge', 'costCenter', 'level']);
    // Setting again overwrites the value and keeps the others.
    expect((await grant(id, { level: -1 })).status).toBe(204);
    expect(await stored(id)).toEqual({ costCenter: 'CC-7', level: -1, badge: {} });
  });

  it('drops a name from the list only when no user holds it any more', async () => {
    const a = await service.createUser();
    const b = await service.createUser();
    await grant(a, { shared: 'a', onlyA: 1 });
    await grant(b, { shared: 'b' });
    expect(await names()).toEqual(expect.arrayContaining(['onlyA', 'shared']));

    expect((await revoke(a, ['shared', 'onlyA', 'neverSet'])).status).toBe(204);
    expect(await stored(a)).toEqual({});
    let inUse = await names();
    expect(inUse).toContain('shared');
    expect(inUse).not.toContain('onlyA');
    expect(inUse).not.toContain('neverSet');

    expect((await revoke(b, ['shared'])).status).toBe(204);
    expect((await revoke(b, ['shared'])).status).toBe(204);
    inUse = await names();
    expect(inUse).not.toContain('shared');
    // Set again after removal: listed again.
    await grant(b, { shared: 'again' });
    expect(await names()).toContain('shared');
  });

  it.each([
    ['a boolean value', { flag: true }],
    ['a nested non-empty object', { nested: { a: 1 } }],
    ['a null value', { gone: null }],
    ['an array value', { list: ['a'] }],
  ])('answers 400 for %s and stores nothing', async (_label, properties) => {
    const id = await service.createUser();
    const response = await grant(id, properties);
    expect(response.status).toBe(400);
    expect(errorFields(response)[0]).toMatch(
      new RegExp(`^body\\.additionalProperties\\.${Object.keys(properties)[0]}`),
    );
    expect(await stored(id)).toBeUndefined();
  });

  it.each([
    ['grant', 'an unknown key', { additionalProperties: {}, foo: 1 }, 'body.foo'],
    ['grant', 'a missing map', {}, 'body.additionalProperties'],
    ['grant', 'a map of the wrong type', { additionalProperties: ['a'] }, 'body.additionalProperties'],
    ['revoke', 'an unknown key', { propertiesToRemove: [], foo: 1 }, 'body.foo'],
    ['revoke', 'a list of the wrong type', { propertiesToRemove: 'a' }, 'body.propertiesToRemove'],
    ['revoke', 'a non-string name', { propertiesToRemove: [1] }, 'body.propertiesToRemove.0'],
  ])('%s answers 400 for %s', async (operation, _label, body, field) => {
    const id = await service.createUser();
    const response = await service.call<ApiError>(
      'PUT',
      `/idp/users/${id}/additionalProperties/${operation}`,
      {
        token: service.admin.token,
        body,
      },
    );
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it('answers 404 for an unknown user and for a user of another organization', async () => {
    for (const id of ['no-such-user', foreign.user.id]) {
      for (const response of [await grant(id, { secretProp: 'x' }), await revoke(id, ['secretProp'])]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User not found');
      }
    }
    expect(await names()).not.toContain('secretProp');
  });

  it("lists only the caller organization's names", async () => {
    const theirs = await service.call('PUT', `/idp/users/${foreign.user.id}/additionalProperties/grant`, {
      token: foreign.token,
      body: { additionalProperties: { foreignOnly: 'x' } },
    });
    expect(theirs.status).toBe(204);
    expect(await names()).not.toContain('foreignOnly');
    const listed = await service.call('GET', '/idp/additionalUserProperties', { token: foreign.token });
    expect(listed.body).toEqual({ additionalProperties: ['foreignOnly'] });
  });

  it('accepts a name listed twice in propertiesToRemove', async () => {
    const id = await service.createUser();
    await grant(id, { twice: 'x' });
    expect((await revoke(id, ['twice', 'twice'])).status).toBe(204);
  });
});
