import { describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import type { ApiError, ApiUser, ApiUserGroupEnvelope } from '../../support/service.js';
import {
  getItem,
  groupPath,
  groupsApi,
  putTestPolicy,
  putTestRole,
  statuses,
  times,
  useService,
} from '../../support/service.js';

/** Parallel requests racing for names and numbers, grants on one group, and the maintained count. */
const service = useService();
const groups = groupsApi(service, service.admin);

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

describe('uniqueness under concurrency', () => {
  it('10 parallel creates of the same name (in different cases): one 201, nine 409', async () => {
    const org = await service.freshOrganization();
    const orgGroups = groupsApi(service, org);
    const responses = await times(10, (index) =>
      orgGroups.create({ name: index % 2 === 0 ? 'Racing Name' : 'RACING name' }),
    );
    expect(sorted(statuses(responses))).toEqual([201, ...Array(9).fill(409)]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect((response.body as ApiError).message).toBe('A user group with this name already exists');
    }
    const winner = (responses.find((r) => r.status === 201) as { body: ApiUserGroupEnvelope }).body.userGroup;
    expect((await orgGroups.listAll()).groups).toEqual([winner]);
    expect(await orgGroups.count()).toBe(1);
  });

  it('10 parallel creates with the same number: one 201; the losers took no name', async () => {
    const org = await service.freshOrganization();
    const orgGroups = groupsApi(service, org);
    const responses = await times(10, (index) =>
      orgGroups.create({ name: `Numbered ${index}`, number: 'RACE-1' }),
    );
    expect(sorted(statuses(responses))).toEqual([201, ...Array(9).fill(409)]);
    const winner = (responses.find((r) => r.status === 201) as { body: ApiUserGroupEnvelope }).body.userGroup;
    expect(winner.number).toBe('RACE-1');
    expect(await orgGroups.count()).toBe(1);
    for (let index = 0; index < 10; index++) {
      const name = `Numbered ${index}`;
      if (name === winner.name) continue;
      expect((await orgGroups.create({ name })).status).toBe(201);
    }
    expect(await orgGroups.count()).toBe(10);
  });

  it('two groups renamed in parallel to the same name: one 200, one 409; the winner holds it', async () => {
    const a = await groups.newGroup({ name: 'Rename A' });
    const b = await groups.newGroup({ name: 'Rename B' });
    const responses = await Promise.all([
      groups.patch(a.id, { name: 'Contested' }),
      groups.patch(b.id, { name: 'contested' }),
    ]);
    expect(sorted(statuses(responses))).toEqual([200, 409]);
    const [winner, loser] = responses[0]?.status === 200 ? [a, b] : [b, a];
    expect((await groups.get(loser.id)).body).toEqual({ userGroup: loser });
    expect((await groups.get(winner.id)).body.userGroup.name).toMatch(/^contested$/i);
    expect((await groups.create({ name: 'CONTESTED' })).status).toBe(409);
    // The winner's old name is free, the loser's is not.
    expect((await groups.create({ name: winner.name })).status).toBe(201);
    expect((await groups.create({ name: loser.name })).status).toBe(409);
  });
});

describe('grants under concurrency', () => {
  it('10 parallel assigns of 10 different roles to one group all land', async () => {
    const group = await groups.newGroup({ name: 'Ten roles' });
    const roles = await times(10, () => putTestRole(service.organizationId));
    const responses = await Promise.all(
      roles.map((role) =>
        service.call<ApiUserGroupEnvelope>('PUT', groupPath(group.id, '/roles/assign'), {
          token: service.admin.token,
          body: { roleId: role.id },
        }),
      ),
    );
    expect(statuses(responses)).toEqual(Array(10).fill(200));
    const ids = roles.map((role) => role.id).sort();
    expect((await groups.get(group.id)).body.userGroup.roles).toEqual(ids);
    // Every answer shows at least its own role.
    responses.forEach((response, index) => {
      expect(response.body.userGroup.roles).toContain(roles[index]?.id);
    });
  });

  it('parallel assigns of roles, policies and managed roles mixed with PATCHes lose nothing', async () => {
    const group = await groups.newGroup({
      name: 'Mixed writes',
      description: 'start',
    });
    const roles = await times(5, () => putTestRole(service.organizationId));
    const policies = await times(5, () => putTestPolicy(service.organizationId));
    const assign = (target: string, body: unknown) =>
      service.call('PUT', groupPath(group.id, `/${target}/assign`), { token: service.admin.token, body });
    const responses = await Promise.all([
      ...roles.map((role) => assign('roles', { roleId: role.id })),
      ...policies.map((policy) => assign('policies', { policyId: policy })),
      ...['read-only', 'user-manager'].map((id) => assign('managedRoles', { managedRoleId: id })),
      ...Array.from({ length: 6 }, (_, index) =>
        groups.patch(group.id, { description: `description ${index}` }),
      ),
    ]);
    expect(statuses(responses)).toEqual(Array(18).fill(200));
    const final = (await groups.get(group.id)).body.userGroup;
    expect(final).toEqual({
      ...group,
      description: expect.stringMatching(/^description [0-5]$/),
      roles: roles.map((role) => role.id).sort(),
      policies: [...policies].sort(),
      managedRoles: ['read-only', 'user-manager'],
      updatedAt: final.updatedAt,
    });
  });

  it('members joining while the group is deleted leave no trace of it', async () => {
    const group = await groups.newGroup({ name: 'Deleted while joining' });
    const users = await times(10, () => service.createUser());
    const responses = await Promise.all([
      ...users.map((user) =>
        service.call('PUT', `/idp/users/${user}/userGroups/${group.id}`, { token: service.admin.token }),
      ),
      service.call('DELETE', groupPath(group.id), { token: service.admin.token }),
    ]);
    // Each join happened before the delete (200) or found the group gone (404).
    for (const status of statuses(responses.slice(0, 10))) expect([200, 404]).toContain(status);
    expect(responses[10]?.status).toBe(204);
    for (const user of users) {
      const read = await service.call<ApiUser>('GET', `/idp/users/${user}`, { token: service.admin.token });
      expect(read.body.userGroups).toEqual([]);
      expect(await getItem(keys.groupMember(service.organizationId, group.id, user))).toBeUndefined();
    }
  });
});

describe('whole-group operations under concurrency', () => {
  it('5 parallel DELETEs of one group: 204 or 404, never 500; the group is gone', async () => {
    const group = await groups.newGroup({ name: 'Deleted five times' });
    const member = await service.createUser();
    await service.call('PUT', `/idp/users/${member}/userGroups/${group.id}`, { token: service.admin.token });
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        service.call('DELETE', groupPath(group.id), { token: service.admin.token }),
      ),
    );
    for (const status of statuses(responses)) expect([204, 404]).toContain(status);
    expect(statuses(responses)).toContain(204);
    expect((await service.call('GET', groupPath(group.id), { token: service.admin.token })).status).toBe(404);
    const read = await service.call<ApiUser>('GET', `/idp/users/${member}`, { token: service.admin.token });
    expect(read.body.userGroups).toEqual([]);
  });

  it('10 parallel duplicates of one group all succeed with distinct copy names', async () => {
    const group = await groups.newGroup({ name: 'Copied ten times' });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        service.call<{ userGroup: { name: string } }>('POST', groupPath(group.id, '/duplicate'), {
          token: service.admin.token,
        }),
      ),
    );
    expect(statuses(responses)).toEqual(Array(10).fill(200));
    const names = responses.map((response) => response.body.userGroup.name);
    expect(new Set(names).size).toBe(10);
    expect(names).toContain('Copy of Copied ten times');
    expect(names).toContain('Copy of Copied ten times (10)');
  });
});

describe('the maintained count', () => {
  it('a burst of 15 creates and 5 deletes: count equals the groups listed', async () => {
    const org = await service.freshOrganization();
    const orgGroups = groupsApi(service, org);
    const existing = [];
    for (let index = 0; index < 8; index++) {
      existing.push(await orgGroups.newGroup({ name: `Existing ${index}` }));
    }
    const doomed = existing.slice(0, 5);
    const survivors = existing.slice(5);
    const responses = await Promise.all([
      ...Array.from({ length: 15 }, (_, index) =>
        orgGroups.create({ name: `Burst ${index}`, number: `B-${index}` }),
      ),
      ...doomed.map((group) => service.call('DELETE', groupPath(group.id), { token: org.token })),
    ]);
    expect(statuses(responses)).toEqual([...Array(15).fill(201), ...Array(5).fill(204)]);
    const created = responses
      .slice(0, 15)
      .map((response) => (response.body as ApiUserGroupEnvelope).userGroup);

    const count = await orgGroups.count();
    const { groups, pages } = await orgGroups.listAll(4);
    expect(count).toBe(groups.length);
    expect(count).toBe(18);
    expect(pages).toBe(5);
    // Survivors first (created earlier), then the burst in some order; no deleted group.
    expect(groups.slice(0, 3)).toEqual(survivors);
    expect(
      groups
        .slice(3)
        .map((group) => group.id)
        .sort(),
    ).toEqual(created.map((group) => group.id).sort());
    expect(new Set(groups.map((group) => group.id)).size).toBe(18);
  });
});
