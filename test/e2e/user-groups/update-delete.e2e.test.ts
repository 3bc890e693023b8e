import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import {
  type ApiError,
  type ApiUser,
  errorFields,
  type ForeignOrganization,
  foreignOrganization,
  getItem,
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
  freshOrganization,
  getGroup,
  groupPath,
  listAllGroups,
  newGroup,
  patchGroup,
  sleep,
} from '../../support/user-group-fixtures.js';

/** PATCH and DELETE /userGroups/{id}. */
let service: TestService;
let admin: Caller;
let foreign: ForeignOrganization;
let foreignGroup: ApiUserGroup;

beforeAll(async () => {
  service = await startTestService();
  admin = callerOf(await service.token());
  foreign = await foreignOrganization(service);
  foreignGroup = await newGroup(service, foreign.token, { name: 'Foreign group', description: 'theirs' });
});
afterAll(() => service?.close());

const patch = (id: string, body: unknown, token = admin.token) => patchGroup(service, token, id, body);
const remove = (id: string, token = admin.token) =>
  service.call<ApiError>('DELETE', groupPath(id), { token });
const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: admin.token })).body;

describe('PATCH /userGroups/{id}', () => {
  it('changes only the given fields; updatedAt advances and updatedBy is the caller', async () => {
    const group = await newGroup(service, admin.token, {
      name: 'Patch me',
      number: 'P-1',
      description: 'before',
    });
    const editor = await callerWith(service, service.organizationId, ['USER_GROUP.UPDATE']);
    await sleep(5);
    const response = await patch(group.id, { description: 'after' }, editor.token);
    expect(response.status).toBe(200);
    const changed = response.body.userGroup;
    expect(changed).toEqual({
      ...group,
      description: 'after',
      updatedAt: changed.updatedAt,
      updatedBy: editor.principalId,
    });
    expect(changed.updatedAt).toBeGreaterThan(group.updatedAt);
    expect((await getGroup(service, admin.token, group.id)).body).toEqual({ userGroup: changed });

    await sleep(5);
    const status = await patch(group.id, { status: 'INACTIVE' });
    expect(status.body.userGroup).toEqual({
      ...changed,
      status: 'INACTIVE',
      updatedAt: status.body.userGroup.updatedAt,
      updatedBy: admin.principalId,
    });
    expect(status.body.userGroup.updatedAt).toBeGreaterThan(changed.updatedAt);

    const all = await patch(group.id, { name: 'Patched', number: 'P-2', description: '', status: 'ACTIVE' });
    expect(all.status).toBe(200);
    expect(all.body.userGroup).toEqual({
      ...group,
      name: 'Patched',
      number: 'P-2',
      description: '',
      status: 'ACTIVE',
      updatedAt: all.body.userGroup.updatedAt,
    });
    // The old number is free again, the new one is taken.
    expect((await createGroup(service, admin.token, { name: 'Takes P-1', number: 'P-1' })).status).toBe(201);
    expect((await createGroup(service, admin.token, { name: 'Wants P-2', number: 'P-2' })).status).toBe(409);
  });

  it('an empty body changes nothing but updatedAt', async () => {
    const group = await newGroup(service, admin.token, { name: 'Empty patch' });
    await sleep(5);
    const response = await patch(group.id, {});
    expect(response.status).toBe(200);
    expect(response.body.userGroup).toEqual({ ...group, updatedAt: response.body.userGroup.updatedAt });
  });

  it('answers 409 when the new name (any case) belongs to another group; nothing changes', async () => {
    await newGroup(service, admin.token, { name: 'Taken Name' });
    const group = await newGroup(service, admin.token, { name: 'Free Name', number: 'C-1' });
    for (const name of ['Taken Name', 'taken name', 'TAKEN NAME']) {
      const response = await patch(group.id, { name, description: 'not applied' });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user group with this name already exists');
    }
    expect((await getGroup(service, admin.token, group.id)).body).toEqual({ userGroup: group });
    // Its own name is still reserved.
    expect((await createGroup(service, admin.token, { name: 'free name' })).status).toBe(409);
  });

  it('answers 409 when the new number belongs to another group; nothing changes', async () => {
    await newGroup(service, admin.token, { name: 'Holds C-2', number: 'C-2' });
    const group = await newGroup(service, admin.token, { name: 'Wants C-2', number: 'C-3' });
    const plain = await newGroup(service, admin.token, { name: 'Has no number' });
    for (const target of [group, plain]) {
      const response = await patch(target.id, { number: 'C-2', name: `${target.name} renamed` });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user group with this number already exists');
      expect((await getGroup(service, admin.token, target.id)).body).toEqual({ userGroup: target });
    }
    // The names those refused PATCHes asked for were not taken.
    expect((await createGroup(service, admin.token, { name: 'Wants C-2 renamed' })).status).toBe(201);
  });

  it('renaming frees the old name; changing the case of its own name is allowed', async () => {
    const group = await newGroup(service, admin.token, { name: 'Old Name' });
    const renamed = await patch(group.id, { name: 'New Name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.userGroup.name).toBe('New Name');
    const taker = await createGroup(service, admin.token, { name: 'old name' });
    expect(taker.status).toBe(201);

    const recased = await patch(group.id, { name: 'NEW name' });
    expect(recased.status).toBe(200);
    expect(recased.body.userGroup.name).toBe('NEW name');
    // Same name, same case: also fine; the name stays reserved for this group.
    expect((await patch(group.id, { name: 'NEW name' })).status).toBe(200);
    expect((await createGroup(service, admin.token, { name: 'new name' })).status).toBe(409);
  });

  it('keeps its own number when PATCH repeats it', async () => {
    const group = await newGroup(service, admin.token, { name: 'Same number', number: 'S-1' });
    const response = await patch(group.id, { number: 'S-1' });
    expect(response.status).toBe(200);
    expect(response.body.userGroup.number).toBe('S-1');
    expect((await createGroup(service, admin.token, { name: 'Other S-1', number: 'S-1' })).status).toBe(409);
  });

  it.each([
    ['an unknown key', { foo: 1 }, 'body.foo'],
    ['a name of the wrong type', { name: 1 }, 'body.name'],
    ['an empty name', { name: '' }, 'body.name'],
    ['a number of the wrong type', { number: false }, 'body.number'],
    ['an unknown status', { status: 'active' }, 'body.status'],
  ])('answers 400 for %s and changes nothing', async (_label, body, field) => {
    const group = await newGroup(service, admin.token, { name: `Invalid ${field} ${Math.random()}` });
    const response = await patch(group.id, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await getGroup(service, admin.token, group.id)).body).toEqual({ userGroup: group });
  });

  it('answers 404 for an unknown id and for a group of another organization, which stays unchanged', async () => {
    for (const id of ['no-such-group', foreignGroup.id]) {
      const response = await patch(id, { description: 'hijacked' });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
    }
    expect((await getGroup(service, foreign.token, foreignGroup.id)).body).toEqual({
      userGroup: foreignGroup,
    });
  });
});

describe('DELETE /userGroups/{id}', () => {
  it('deletes: 204; then 404 on GET and on DELETE; it leaves the list and the count', async () => {
    const org = await freshOrganization(service);
    const keep = await newGroup(service, org.token, { name: 'Keep' });
    const doomed = await newGroup(service, org.token, { name: 'Doomed', number: 'D-1' });
    const last = await newGroup(service, org.token, { name: 'Last' });
    expect(await countGroups(service, org.token)).toBe(3);

    const response = await remove(doomed.id, org.token);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const read = await getGroup(service, org.token, doomed.id);
    expect(read.status).toBe(404);
    expect(read.body.message).toBe('User group not found');
    const again = await remove(doomed.id, org.token);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('User group not found');
    expect(await countGroups(service, org.token)).toBe(2);
    expect((await listAllGroups(service, org.token)).groups).toEqual([keep, last]);
    expect(await getItem(keys.userGroup(org.orgId, doomed.id))).toBeUndefined();
    const patched = await patchGroup(service, org.token, doomed.id, { description: 'x' });
    expect(patched.status).toBe(404);

    // Name and number can be used again.
    const reborn = await newGroup(service, org.token, { name: 'doomed', number: 'D-1' });
    expect(reborn.id).not.toBe(doomed.id);
    expect(await countGroups(service, org.token)).toBe(3);
    expect((await listAllGroups(service, org.token)).groups).toEqual([keep, last, reborn]);
  });

  it('removes the group from every member and deletes the membership items', async () => {
    const group = await newGroup(service, admin.token, { name: 'With members' });
    const other = await newGroup(service, admin.token, { name: 'Stays with members' });
    const members = [
      await service.createUser(uniqueEmail('m1')),
      await service.createUser(uniqueEmail('m2')),
      await service.createUser(uniqueEmail('m3')),
    ];
    for (const member of members) await addMember(service, admin.token, member, group.id);
    await addMember(service, admin.token, members[0] as string, other.id);
    expect((await userOf(members[0] as string)).userGroups).toEqual([group.id, other.id].sort());

    expect((await remove(group.id)).status).toBe(204);
    for (const member of members) {
      expect((await userOf(member)).userGroups).toEqual(member === members[0] ? [other.id] : []);
      expect(await getItem(keys.groupMember(service.organizationId, group.id, member))).toBeUndefined();
    }
    expect(await getItem(keys.groupMember(service.organizationId, other.id, members[0] as string))).toEqual(
      expect.objectContaining({ userId: members[0], groupId: other.id }),
    );
    // A former member can no longer be added to the deleted group.
    const join = await service.call<ApiError>('PUT', `/idp/users/${members[1]}/userGroups/${group.id}`, {
      token: admin.token,
    });
    expect(join.status).toBe(404);
    expect(join.body.message).toBe('User group not found');
  });

  it('answers 404 for an unknown id and for a group of another organization, which survives', async () => {
    for (const id of ['no-such-group', foreignGroup.id]) {
      const response = await remove(id);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
    }
    expect((await getGroup(service, foreign.token, foreignGroup.id)).body).toEqual({
      userGroup: foreignGroup,
    });
    expect(await countGroups(service, foreign.token)).toBe(1);
  });
});
