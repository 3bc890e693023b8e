import { describe, expect, it } from 'vitest';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  putTestPolicy,
  putTestRole,
  putTestUserGroup,
  statuses,
  times,
  uniqueEmail,
  useService,
} from '../../support/service.js';

/** Concurrent writes to one user, and concurrent creations racing for one email. */
const service = useService();

const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body;

describe('concurrent grants', () => {
  it('20 parallel role grants to one user all land', async () => {
    const id = await service.createUser();
    const roles = await times(20, () => putTestRole(service.organizationId));
    const responses = await Promise.all(
      roles.map((role) =>
        service.call('PUT', `/idp/users/${id}/roles/${role.id}/grant`, { token: service.admin.token }),
      ),
    );
    expect(statuses(responses)).toEqual(Array(20).fill(204));
    expect((await userOf(id)).roles).toEqual(roles.map((role) => role.id).sort());
  });

  it('parallel grants of roles, policies, managed roles and groups do not lose each other', async () => {
    const id = await service.createUser();
    const roles = await times(5, () => putTestRole(service.organizationId));
    const policies = await times(5, () => putTestPolicy(service.organizationId));
    const groups = await times(5, () => putTestUserGroup(service.organizationId));
    const responses = await Promise.all([
      ...roles.map((role) =>
        service.call('PUT', `/idp/users/${id}/roles/${role.name}/grant`, { token: service.admin.token }),
      ),
      ...policies.map((policy) =>
        service.call('PUT', `/idp/users/${id}/policies/${policy}`, { token: service.admin.token }),
      ),
      ...['read-only', 'user-manager'].map((role) =>
        service.call('PUT', `/idp/users/${id}/managedRoles/${role}`, { token: service.admin.token }),
      ),
      ...groups.map((group) =>
        service.call('PUT', `/idp/users/${id}/userGroups/${group}`, { token: service.admin.token }),
      ),
      service.call('PUT', `/idp/users/${id}`, {
        token: service.admin.token,
        body: { name: 'Renamed meanwhile' },
      }),
    ]);
    expect(statuses(responses)).toEqual([...Array(12).fill(204), ...Array(6).fill(200)]);
    const user = await userOf(id);
    expect(user).toMatchObject({
      name: 'Renamed meanwhile',
      roles: roles.map((role) => role.id).sort(),
      policies: [...policies].sort(),
      managedRoles: ['read-only', 'user-manager'],
      userGroups: [...groups].sort(),
    });
  });

  it('parallel grants and revokes of the same role leave a consistent state', async () => {
    const id = await service.createUser();
    const keep = await putTestRole(service.organizationId);
    const flip = await putTestRole(service.organizationId);
    await service.call('PUT', `/idp/users/${id}/roles/${keep.id}/grant`, { token: service.admin.token });
    const responses = await times(10, (index) =>
      service.call('PUT', `/idp/users/${id}/roles/${flip.id}/${index % 2 === 0 ? 'grant' : 'revoke'}`, {
        token: service.admin.token,
      }),
    );
    expect(statuses(responses)).toEqual(Array(10).fill(204));
    const { roles } = await userOf(id);
    expect(roles).toContain(keep.id);
    expect(roles.filter((role) => role !== keep.id).every((role) => role === flip.id)).toBe(true);
  });
});

describe('concurrent property changes', () => {
  const names = async () =>
    (
      await service.call<{ additionalProperties: string[] }>('GET', '/idp/additionalUserProperties', {
        token: service.admin.token,
      })
    ).body.additionalProperties.filter((name) => name.startsWith('parallel'));

  /**
   * Every request either lands (204) or is refused whole (409, "changed concurrently"), and the
   * names in use match what the user holds. (That some are refused at all is reported as a bug:
   * the optimistic retry gives up after 5 immediate attempts.)
   */
  it('10 parallel additional-property grants and revokes with different names keep the counts exact', async () => {
    const id = await service.createUser();
    const granted = await times(10, (index) =>
      service.call<ApiError>('PUT', `/idp/users/${id}/additionalProperties/grant`, {
        token: service.admin.token,
        body: { additionalProperties: { [`parallel${index}`]: index } },
      }),
    );
    for (const response of granted) expect([204, 409]).toContain(response.status);
    const landed = Array.from({ length: 10 }, (_, index) => index).filter(
      (index) => granted[index]?.status === 204,
    );
    expect(landed.length).toBeGreaterThan(0);
    const stored = (await getUser(service.organizationId, id, true))?.additionalProperties;
    expect(stored).toEqual(Object.fromEntries(landed.map((index) => [`parallel${index}`, index])));
    expect((await names()).sort()).toEqual(landed.map((index) => `parallel${index}`).sort());

    const revoked = await Promise.all(
      landed.map((index) =>
        service.call<ApiError>('PUT', `/idp/users/${id}/additionalProperties/revoke`, {
          token: service.admin.token,
          body: { propertiesToRemove: [`parallel${index}`] },
        }),
      ),
    );
    for (const response of revoked) expect([204, 409]).toContain(response.status);
    const left = landed.filter((_, position) => revoked[position]?.status === 409);
    expect((await getUser(service.organizationId, id, true))?.additionalProperties).toEqual(
      Object.fromEntries(left.map((index) => [`parallel${index}`, index])),
    );
    expect((await names()).sort()).toEqual(left.map((index) => `parallel${index}`).sort());
  });
});

describe('concurrent creation and email changes', () => {
  it('10 parallel creations with one email: exactly one 204, nine 409, one user listed', async () => {
    const email = uniqueEmail('race');
    const responses = await times(10, (index) =>
      service.call<ApiError>('POST', '/idp/users', {
        token: service.admin.token,
        body: {
          email: index % 2 === 0 ? email : email.toUpperCase(),
          name: `Racer ${index}`,
          userType: 'STANDARD',
        },
      }),
    );
    expect(statuses(responses).sort()).toEqual([204, ...Array(9).fill(409)]);
    const list = await service.call<ApiUser[]>('GET', '/idp/users', { token: service.admin.token });
    const matching = list.body.filter((user) => user.email.toLowerCase() === email.toLowerCase());
    expect(matching).toHaveLength(1);
    const winner = responses.find((response) => response.status === 204);
    expect(matching[0]?.id).toBe(winner?.headers.get('location')?.split('/').pop());
  });

  it('two users racing for one new email: one 200, one 409', async () => {
    const email = uniqueEmail('wanted');
    const a = await service.createUser();
    const b = await service.createUser();
    const responses = await Promise.all(
      [a, b].map((id) =>
        service.call<ApiUser>('PUT', `/idp/users/${id}`, {
          token: service.admin.token,
          body: { name: 'Racer', email },
        }),
      ),
    );
    expect(statuses(responses).sort()).toEqual([200, 409]);
    const holders = (await Promise.all([a, b].map(userOf))).filter((user) => user.email === email);
    expect(holders).toHaveLength(1);
  });

  it('parallel deactivations keep both listings and their paging exact', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 8; index++) ids.push(await service.createUser());
    const before = (
      await service.call<ApiUser[]>('GET', '/idp/users', { token: service.admin.token })
    ).body.map((user) => user.id);
    const deactivated = ids.filter((_, index) => index % 2 === 1);
    const responses = await Promise.all(
      [...deactivated, ...deactivated].map((id) =>
        service.call('PUT', `/idp/users/${id}/setUserStatus`, {
          token: service.admin.token,
          body: { userStatus: 'INACTIVE' },
        }),
      ),
    );
    expect(statuses(responses)).toEqual(Array(8).fill(204));
    const active = before.filter((id) => !deactivated.includes(id));
    const pages: string[] = [];
    for (let page = 0; page * 3 < active.length + 3; page++) {
      const response = await service.call<ApiUser[]>('GET', `/idp/users?page=${page}&pageSize=3`, {
        token: service.admin.token,
      });
      pages.push(...response.body.map((user) => user.id));
    }
    expect(pages).toEqual(active);
    const inactive = await service.call<ApiUser[]>('GET', '/idp/users?fetchInactive=true&pageSize=2&page=1', {
      token: service.admin.token,
    });
    expect(inactive.body.map((user) => user.id)).toEqual(deactivated.slice(2, 4));
  });
});
