import { describe, expect, it } from 'vitest';
import { keys } from '../../../shared/store/keys.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  errorFields,
  getItem,
  groupPath,
  groupsApi,
  nextMillisecond,
  useFixture,
  useService,
} from '../../support/service.js';

/** PATCH and DELETE /userGroups/{id}. */
const service = useService();
const groups = groupsApi(service, service.admin);

const patch = (id: string, body: unknown, token = service.admin.token) =>
  groupsApi(service, { token }).patch(id, body);
const remove = (id: string, token = service.admin.token) =>
  service.call<ApiError>('DELETE', groupPath(id), { token });
const userOf = async (id: string) =>
  (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body;

/** Another organization and a group of it. */
const foreign = useFixture(() => service.freshOrganization());
const foreignGroups = groupsApi(service, foreign);
const foreignGroup = useFixture(() =>
  foreignGroups.newGroup({ name: 'Foreign group', description: 'theirs' }),
);

describe('PATCH /userGroups/{id}', () => {
  it('changes only the given fields; updatedAt advances and updatedBy is the caller', async () => {
    const group = await groups.newGroup({
      name: 'Patch me',
      number: 'P-1',
      description: 'before',
    });
    const editor = await service.callerWith(['USER_GROUP.UPDATE']);
    await nextMillisecond();
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
    expect((await groups.get(group.id)).body).toEqual({ userGroup: changed });

    await nextMillisecond();
    const status = await patch(group.id, { status: 'INACTIVE' });
    expect(status.body.userGroup).toEqual({
      ...changed,
      status: 'INACTIVE',
      updatedAt: status.body.userGroup.updatedAt,
      updatedBy: service.admin.principalId,
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
    expect((await groups.create({ name: 'Takes P-1', number: 'P-1' })).status).toBe(201);
    expect((await groups.create({ name: 'Wants P-2', number: 'P-2' })).status).toBe(409);
  });

  it('an empty body changes nothing but updatedAt', async () => {
    const group = await groups.newGroup({ name: 'Empty patch' });
    await nextMillisecond();
    const response = await patch(group.id, {});
    expect(response.status).toBe(200);
    expect(response.body.userGroup).toEqual({ ...group, updatedAt: response.body.userGroup.updatedAt });
  });

  it('answers 409 when the new name (any case) belongs to another group; nothing changes', async () => {
    await groups.newGroup({ name: 'Taken Name' });
    const group = await groups.newGroup({ name: 'Free Name', number: 'C-1' });
    for (const name of ['Taken Name', 'taken name', 'TAKEN NAME']) {
      const response = await patch(group.id, { name, description: 'not applied' });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user group with this name already exists');
    }
    expect((await groups.get(group.id)).body).toEqual({ userGroup: group });
    // Its own name is still reserved.
    expect((await groups.create({ name: 'free name' })).status).toBe(409);
  });

  it('answers 409 when the new number belongs to another group; nothing changes', async () => {
    await groups.newGroup({ name: 'Holds C-2', number: 'C-2' });
    const group = await groups.newGroup({ name: 'Wants C-2', number: 'C-3' });
    const plain = await groups.newGroup({ name: 'Has no number' });
    for (const target of [group, plain]) {
      const response = await patch(target.id, { number: 'C-2', name: `${target.name} renamed` });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user group with this number already exists');
      expect((await groups.get(target.id)).body).toEqual({ userGroup: target });
    }
    // The names those refused PATCHes asked for were not taken.
    expect((await groups.create({ name: 'Wants C-2 renamed' })).status).toBe(201);
  });

  it('renaming frees the old name; changing the case of its own name is allowed', async () => {
    const group = await groups.newGroup({ name: 'Old Name' });
    const renamed = await patch(group.id, { name: 'New Name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.userGroup.name).toBe('New Name');
    const taker = await groups.create({ name: 'old name' });
    expect(taker.status).toBe(201);

    const recased = await patch(group.id, { name: 'NEW name' });
    expect(recased.status).toBe(200);
    expect(recased.body.userGroup.name).toBe('NEW name');
    // Same name, same case: also fine; the name stays reserved for this group.
    expect((await patch(group.id, { name: 'NEW name' })).status).toBe(200);
    expect((await groups.create({ name: 'new name' })).status).toBe(409);
  });

  it('keeps its own number when PATCH repeats it', async () => {
    const group = await groups.newGroup({ name: 'Same number', number: 'S-1' });
    const response = await patch(group.id, { number: 'S-1' });
    expect(response.status).toBe(200);
    expect(response.body.userGroup.number).toBe('S-1');
    expect((await groups.create({ name: 'Other S-1', number: 'S-1' })).status).toBe(409);
  });

  it.each([
    ['an unknown key', { foo: 1 }, 'body.foo'],
    ['a name of the wrong type', { name: 1 }, 'body.name'],
    ['an empty name', { name: '' }, 'body.name'],
    ['a number of the wrong type', { number: false }, 'body.number'],
    ['an unknown status', { status: 'active' }, 'body.status'],
  ])('answers 400 for %s and changes nothing', async (_label, body, field) => {
    const group = await groups.newGroup({ name: `Invalid ${field} ${Math.random()}` });
    const response = await patch(group.id, body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
    expect((await groups.get(group.id)).body).toEqual({ userGroup: group });
  });

  it('answers 404 for an unknown id and for a group of another organization, which stays unchanged', async () => {
    for (const id of ['no-such-group', foreignGroup.id]) {
      const response = await patch(id, { description: 'hijacked' });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
    }
    expect((await foreignGroups.get(foreignGroup.id)).body).toEqual({
      userGroup: foreignGroup,
    });
  });
});

describe('DELETE /userGroups/{id}', () => {
  it('deletes: 204; then 404 on GET and on DELETE; it leaves the list and the count', async () => {
    const org = await service.freshOrganization();
    const orgGroups = groupsApi(service, org);
    const keep = await orgGroups.newGroup({ name: 'Keep' });
    const doomed = await orgGroups.newGroup({ name: 'Doomed', number: 'D-1' });
    const last = await orgGroups.newGroup({ name: 'Last' });
    expect(await orgGroups.count()).toBe(3);

    const response = await remove(doomed.id, org.token);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const read = await orgGroups.get(doomed.id);
    expect(read.status).toBe(404);
    expect(read.body.message).toBe('User group not found');
    const again = await remove(doomed.id, org.token);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('User group not found');
    expect(await orgGroups.count()).toBe(2);
    expect((await orgGroups.listAll()).groups).toEqual([keep, last]);
    expect(await getItem(keys.userGroup(org.orgId, doomed.id))).toBeUndefined();
    const patched = await orgGroups.patch(doomed.id, { description: 'x' });
    expect(patched.status).toBe(404);

    // Name and number can be used again.
    const reborn = await orgGroups.newGroup({ name: 'doomed', number: 'D-1' });
    expect(reborn.id).not.toBe(doomed.id);
    expect(await orgGroups.count()).toBe(3);
    expect((await orgGroups.listAll()).groups).toEqual([keep, last, reborn]);
  });

  it('removes the group from every member and deletes the membership items', async () => {
    const group = await groups.newGroup({ name: 'With members' });
    const other = await groups.newGroup({ name: 'Stays with members' });
    const members = [await service.createUser(), await service.createUser(), await service.createUser()];
    for (const member of members) await groups.addMember(member, group.id);
    await groups.addMember(members[0] as string, other.id);
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
      token: service.admin.token,
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
    expect((await foreignGroups.get(foreignGroup.id)).body).toEqual({
      userGroup: foreignGroup,
    });
    expect(await foreignGroups.count()).toBe(1);
  });
});
