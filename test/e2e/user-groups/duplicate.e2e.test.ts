import { describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import type { ApiError, ApiUser, ApiUserGroup, ApiUserGroupEnvelope } from '../../support/service.js';
import {
  getItem,
  groupPath,
  groupsApi,
  nextMillisecond,
  putTestPolicy,
  putTestRole,
  useFixture,
  useService,
} from '../../support/service.js';

/** POST /userGroups/{id}/duplicate. */
const service = useService();
const groups = groupsApi(service, service.admin);

const duplicate = (id: string, token = service.admin.token) =>
  service.call<ApiUserGroupEnvelope & ApiError>('POST', groupPath(id, '/duplicate'), { token });
const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body;
const assign = async (groupId: string, target: string, body: Record<string, string>) => {
  const response = await service.call('PUT', groupPath(groupId, `/${target}/assign`), {
    token: service.admin.token,
    body,
  });
  expect(response.status).toBe(200);
};

const foreign = useFixture(() => service.freshOrganization());
const foreignGroups = groupsApi(service, foreign);

describe('duplicate', () => {
  it('copies description, status, roles, managed roles, policies and members, not the number', async () => {
    const org = service.organizationId;
    const roles = [await putTestRole(org), await putTestRole(org)];
    const policy = await putTestPolicy(org);
    const source = await groups.newGroup({
      name: 'Auditors',
      number: 'A-1',
      description: 'Read everything',
      status: 'INACTIVE',
    });
    for (const role of roles) await assign(source.id, 'roles', { roleId: role.id });
    await assign(source.id, 'managedRoles', { managedRoleId: 'read-only' });
    await assign(source.id, 'policies', { policyId: policy });
    const members = [await service.createUser(), await service.createUser()];
    for (const member of members) await groups.addMember(member, source.id);
    const sourceNow = (await groups.get(source.id)).body.userGroup;
    const countBefore = await groups.count();

    const copier = await service.callerWith([
      'USER_GROUP.ADD',
      'USER_GROUP.READ',
      'USER_ROLES.GRANT',
      'USER_POLICIES.GRANT',
      'USER_GROUP.GRANT',
    ]);
    await nextMillisecond();
    const before = Date.now();
    const response = await duplicate(source.id, copier.token);
    const after = Date.now();
    expect(response.status).toBe(200);
    const copy = response.body.userGroup;
    expect(copy).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Copy of Auditors',
      description: 'Read everything',
      status: 'INACTIVE',
      roles: roles.map((role) => role.id).sort(),
      managedRoles: ['read-only'],
      policies: [policy],
      createdAt: copy.createdAt,
      updatedAt: copy.createdAt,
      createdBy: copier.principalId,
      updatedBy: copier.principalId,
    });
    expect(copy.id).not.toBe(source.id);
    expect(Object.keys(copy)).not.toContain('number');
    expect(copy.createdAt).toBeGreaterThanOrEqual(before);
    expect(copy.createdAt).toBeLessThanOrEqual(after);

    expect((await groups.get(copy.id)).body).toEqual({ userGroup: copy });
    // The source is untouched.
    expect((await groups.get(source.id)).body).toEqual({ userGroup: sourceNow });
    for (const member of members) {
      expect((await userOf(member)).userGroups).toEqual([source.id, copy.id].sort());
      expect(await getItem(keys.groupMember(org, copy.id, member))).toEqual(
        expect.objectContaining({ userId: member, groupId: copy.id }),
      );
    }
    expect(await groups.count()).toBe(countBefore + 1);
    const listed = (await groups.listAll()).groups;
    expect(listed.at(-1)).toEqual(copy);
    expect(listed.find((group) => group.id === source.id)).toEqual(sourceNow);
  });

  it('names further copies "Copy of <name> (2)", "(3)", case-insensitively avoiding taken names', async () => {
    const source = await groups.newGroup({ name: 'Ops' });
    const names: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await duplicate(source.id);
      expect(response.status).toBe(200);
      names.push(response.body.userGroup.name);
    }
    expect(names).toEqual(['Copy of Ops', 'Copy of Ops (2)', 'Copy of Ops (3)']);
    // A name taken in another case is skipped too.
    await groups.newGroup({ name: 'COPY OF OPS (4)' });
    expect((await duplicate(source.id)).body.userGroup.name).toBe('Copy of Ops (5)');
    // A freed name is used again.
    const second = (await groups.listAll()).groups.find(
      (group) => group.name === 'Copy of Ops (2)',
    ) as ApiUserGroup;
    expect((await service.call('DELETE', groupPath(second.id), { token: service.admin.token })).status).toBe(
      204,
    );
    expect((await duplicate(source.id)).body.userGroup.name).toBe('Copy of Ops (2)');
  });

  it('copies a group without members or grants; the copy of a copy is "Copy of Copy of <name>"', async () => {
    const source = await groups.newGroup({ name: 'Plain' });
    const copy = (await duplicate(source.id)).body.userGroup;
    expect(copy).toEqual({
      id: copy.id,
      name: 'Copy of Plain',
      status: 'ACTIVE',
      roles: [],
      managedRoles: [],
      policies: [],
      createdAt: copy.createdAt,
      updatedAt: copy.createdAt,
      createdBy: service.admin.principalId,
      updatedBy: service.admin.principalId,
    });
    const copyOfCopy = await duplicate(copy.id);
    expect(copyOfCopy.status).toBe(200);
    expect(copyOfCopy.body.userGroup.name).toBe('Copy of Copy of Plain');
  });

  it('the copy is independent: changing it leaves the source alone', async () => {
    const role = await putTestRole(service.organizationId);
    const later = await putTestRole(service.organizationId);
    const source = await groups.newGroup({ name: 'Independent' });
    await assign(source.id, 'roles', { roleId: role.id });
    const copy = (await duplicate(source.id)).body.userGroup;
    await assign(copy.id, 'roles', { roleId: later.id });
    const patched = await groups.patch(copy.id, {
      number: 'I-1',
      status: 'INACTIVE',
    });
    expect(patched.status).toBe(200);
    expect(patched.body.userGroup.roles).toEqual([role.id, later.id].sort());
    const sourceNow = (await groups.get(source.id)).body.userGroup;
    expect(sourceNow).toEqual({ ...source, roles: [role.id], updatedAt: sourceNow.updatedAt });
  });

  it('answers 404 for an unknown id and for a group of another organization; nothing is created', async () => {
    const theirs = await foreignGroups.newGroup({ name: 'Foreign source' });
    const count = await groups.count();
    for (const id of ['no-such-group', theirs.id]) {
      const response = await duplicate(id);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
    }
    expect(await groups.count()).toBe(count);
    expect(await foreignGroups.count()).toBe(1);
    // The name a copy of theirs would take is still free here.
    expect((await groups.create({ name: 'Copy of Foreign source' })).status).toBe(201);
  });

  it("gives no one what the caller lacks: an active group's copy needs its roles' permissions, an inactive one's not yet", async () => {
    const org = service.organizationId;
    const auditor = await putTestRole(org, { permissions: ['AUDIT.READ'] });
    const [active, inactive] = [
      await groups.newGroup({ name: 'Auditors (ceiling)' }),
      await groups.newGroup({ name: 'Dormant auditors (ceiling)' }),
    ];
    await assign(active.id, 'roles', { roleId: auditor.id });
    await assign(inactive.id, 'roles', { roleId: auditor.id });
    expect((await groups.patch(inactive.id, { status: 'INACTIVE' })).status).toBe(200);
    const copier = await service.callerWith([
      'USER_GROUP.ADD',
      'USER_GROUP.READ',
      'USER_GROUP.GRANT',
      'USER_ROLES.GRANT',
      'USER_POLICIES.GRANT',
    ]);
    // Positive control: an administrator (holding AUDIT.READ) copies the active group.
    expect((await duplicate(active.id)).status).toBe(200);
    const count = await groups.count();
    const refused = await duplicate(active.id, copier.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      'Duplicating this user group would give permissions the caller does not hold: AUDIT.READ',
    );
    expect(await groups.count()).toBe(count);
    // An inactive copy gives nothing until it is activated, which is checked then.
    const copy = await duplicate(inactive.id, copier.token);
    expect([copy.status, copy.body.userGroup.status]).toEqual([200, 'INACTIVE']);
    expect(
      (await groupsApi(service, copier).patch(copy.body.userGroup.id, { status: 'ACTIVE' })).status,
    ).toBe(403);
  });

  it('cuts a long name between characters, never within an emoji', async () => {
    // "Copy of " and 183 letters leave room for half of the first emoji in 192 units.
    const source = await groups.newGroup({ name: `${'a'.repeat(183)}${'😀'.repeat(8)}` });
    const copy = await duplicate(source.id);
    expect(copy.status).toBe(200);
    expect(copy.body.userGroup.name).toBe(`Copy of ${'a'.repeat(183)}`);
    expect((await groups.get(copy.body.userGroup.id)).body.userGroup.name).toBe(`Copy of ${'a'.repeat(183)}`);
  });
});
