import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import {
  type ApiError,
  type ApiUser,
  type ForeignOrganization,
  foreignOrganization,
  getItem,
  putTestPolicy,
  putTestRole,
  uniqueEmail,
} from '../../support/user-fixtures.js';
import {
  type ApiUserGroup,
  addMember,
  type Caller,
  callerOf,
  callerWith,
  countGroups,
  createGroup,
  type GroupEnvelope,
  getGroup,
  groupPath,
  listAllGroups,
  newGroup,
  patchGroup,
  sleep,
} from '../../support/user-group-fixtures.js';

/** POST /userGroups/{id}/duplicate. */
let service: TestService;
let admin: Caller;
let foreign: ForeignOrganization;

beforeAll(async () => {
  service = await startTestService();
  admin = callerOf(await service.token());
  foreign = await foreignOrganization(service);
});
afterAll(() => service?.close());

const duplicate = (id: string, token = admin.token) =>
  service.call<GroupEnvelope & ApiError>('POST', groupPath(id, '/duplicate'), { token });
const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: admin.token })).body;
const assign = async (groupId: string, target: string, body: Record<string, string>) => {
  const response = await service.call('PUT', groupPath(groupId, `/${target}/assign`), {
    token: admin.token,
    body,
  });
  expect(response.status).toBe(200);
};

describe('duplicate', () => {
  it('copies description, status, roles, managed roles, policies and members, not the number', async () => {
    const org = service.organizationId;
    const roles = [await putTestRole(org), await putTestRole(org)];
    const policy = await putTestPolicy(org);
    const source = await newGroup(service, admin.token, {
      name: 'Auditors',
      number: 'A-1',
      description: 'Read everything',
      status: 'INACTIVE',
    });
    for (const role of roles) await assign(source.id, 'roles', { roleId: role.id });
    await assign(source.id, 'managedRoles', { managedRoleId: 'read-only' });
    await assign(source.id, 'policies', { policyId: policy });
    const members = [await service.createUser(uniqueEmail('a')), await service.createUser(uniqueEmail('b'))];
    for (const member of members) await addMember(service, admin.token, member, source.id);
    const sourceNow = (await getGroup(service, admin.token, source.id)).body.userGroup;
    const countBefore = await countGroups(service, admin.token);

    const copier = await callerWith(service, org, [
      'USER_GROUP.ADD',
      'USER_GROUP.READ',
      'USER_ROLES.GRANT',
      'USER_POLICIES.GRANT',
      'USER_GROUP.GRANT',
    ]);
    await sleep(5);
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

    expect((await getGroup(service, admin.token, copy.id)).body).toEqual({ userGroup: copy });
    // The source is untouched.
    expect((await getGroup(service, admin.token, source.id)).body).toEqual({ userGroup: sourceNow });
    for (const member of members) {
      expect((await userOf(member)).userGroups).toEqual([source.id, copy.id].sort());
      expect(await getItem(keys.groupMember(org, copy.id, member))).toEqual(
        expect.objectContaining({ userId: member, groupId: copy.id }),
      );
    }
    expect(await countGroups(service, admin.token)).toBe(countBefore + 1);
    const listed = (await listAllGroups(service, admin.token)).groups;
    expect(listed.at(-1)).toEqual(copy);
    expect(listed.find((group) => group.id === source.id)).toEqual(sourceNow);
  });

  it('names further copies "Copy of <name> (2)", "(3)", case-insensitively avoiding taken names', async () => {
    const source = await newGroup(service, admin.token, { name: 'Ops' });
    const names: string[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await duplicate(source.id);
      expect(response.status).toBe(200);
      names.push(response.body.userGroup.name);
    }
    expect(names).toEqual(['Copy of Ops', 'Copy of Ops (2)', 'Copy of Ops (3)']);
    // A name taken in another case is skipped too.
    await newGroup(service, admin.token, { name: 'COPY OF OPS (4)' });
    expect((await duplicate(source.id)).body.userGroup.name).toBe('Copy of Ops (5)');
    // A freed name is used again.
    const second = (await listAllGroups(service, admin.token)).groups.find(
      (group) => group.name === 'Copy of Ops (2)',
    ) as ApiUserGroup;
    expect((await service.call('DELETE', groupPath(second.id), { token: admin.token })).status).toBe(204);
    expect((await duplicate(source.id)).body.userGroup.name).toBe('Copy of Ops (2)');
  });

  it('copies a group without members or grants; the copy of a copy is "Copy of Copy of <name>"', async () => {
    const source = await newGroup(service, admin.token, { name: 'Plain' });
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
      createdBy: admin.principalId,
      updatedBy: admin.principalId,
    });
    const copyOfCopy = await duplicate(copy.id);
    expect(copyOfCopy.status).toBe(200);
    expect(copyOfCopy.body.userGroup.name).toBe('Copy of Copy of Plain');
  });

  it('the copy is independent: changing it leaves the source alone', async () => {
    const role = await putTestRole(service.organizationId);
    const later = await putTestRole(service.organizationId);
    const source = await newGroup(service, admin.token, { name: 'Independent' });
    await assign(source.id, 'roles', { roleId: role.id });
    const copy = (await duplicate(source.id)).body.userGroup;
    await assign(copy.id, 'roles', { roleId: later.id });
    const patched = await patchGroup(service, admin.token, copy.id, { number: 'I-1', status: 'INACTIVE' });
    expect(patched.status).toBe(200);
    expect(patched.body.userGroup.roles).toEqual([role.id, later.id].sort());
    const sourceNow = (await getGroup(service, admin.token, source.id)).body.userGroup;
    expect(sourceNow).toEqual({ ...source, roles: [role.id], updatedAt: sourceNow.updatedAt });
  });

  it('answers 404 for an unknown id and for a group of another organization; nothing is created', async () => {
    const theirs = await newGroup(service, foreign.token, { name: 'Foreign source' });
    const count = await countGroups(service, admin.token);
    for (const id of ['no-such-group', theirs.id]) {
      const response = await duplicate(id);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
    }
    expect(await countGroups(service, admin.token)).toBe(count);
    expect(await countGroups(service, foreign.token)).toBe(1);
    // The name a copy of theirs would take is still free here.
    expect((await createGroup(service, admin.token, { name: 'Copy of Foreign source' })).status).toBe(201);
  });
});
