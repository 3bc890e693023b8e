import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { MAX_GRANTS_PER_HOLDER } from '../../shared/domain/limits.js';
import { batchPut } from '../../shared/store/batch.js';
import { ManagedRoleEntity } from '../../shared/store/entities.js';
import { type GrantField, grantTarget } from '../../shared/store/grant-targets.js';
import { keys } from '../../shared/store/keys.js';
import { queryPartition } from '../../shared/store/query.js';
import {
  addUserToGroup,
  grantToUser,
  removeUserFromGroup,
  revokeFromUser,
} from '../../shared/store/user-grants.js';
import { duplicateUserGroup } from '../../shared/store/user-group-lifecycle.js';
import {
  changeUserGroupGrant,
  countUserGroups,
  createUserGroup,
  hideForDeletion,
  memberIdsOf,
} from '../../shared/store/user-group-repository.js';
import { storedUser } from '../../shared/store/user-repository.js';
import {
  createTestOrganization,
  getItem,
  putTestPolicy,
  putTestRole,
  putTestUserGroup,
  useDatabase,
} from '../support/service.js';
import { userRecord } from '../support/user-seeding.js';

/**
 * MAX_GRANTS_PER_HOLDER: the roles, managed roles and policies a user or user group holds, and the
 * groups a user belongs to. Holders are seeded one short of the limit with items written directly.
 */
useDatabase();

const FIELDS: GrantField[] = ['roles', 'managedRoles', 'policies'];
const IN_WORDS: Record<GrantField, string> = {
  roles: 'roles',
  managedRoles: 'managed roles',
  policies: 'policies',
};
const LIMIT = MAX_GRANTS_PER_HOLDER;
const fillers = (count: number) => Array.from({ length: count }, () => randomUUID());

/** A live target of the field's kind (managed roles are global: written as the catalogue writes them). */
const liveTarget = async (orgId: string, field: GrantField): Promise<string> => {
  if (field === 'roles') return (await putTestRole(orgId)).id;
  if (field === 'policies') return putTestPolicy(orgId);
  const id = `managed-${randomUUID()}`;
  const now = Date.now();
  await batchPut([
    ManagedRoleEntity.item(
      { id },
      { id, permissions: [], pluginPermissions: {}, createdAt: now, updatedAt: now },
    ),
  ]);
  return id;
};

/** A user item the way createUser stores it, holding what `holds` says. */
const userItem = (orgId: string, holds: Partial<Record<GrantField | 'userGroups', string[]>>) =>
  storedUser(
    userRecord(orgId, Object.fromEntries(Object.entries(holds).map(([field, ids]) => [field, new Set(ids)]))),
  );

const seedUser = async (orgId: string, holds: Partial<Record<GrantField | 'userGroups', string[]>>) => {
  const item = userItem(orgId, holds);
  await batchPut([item]);
  return String(item.id);
};

const setOf = async (key: { pk: string; sk: string }, field: string) =>
  new Set(((await getItem(key))?.[field] as Set<string> | undefined) ?? []);

describe.each(FIELDS)(`a user holds at most ${LIMIT} %s`, (field) => {
  it('up to the limit; one more is a Conflict that changes nothing; a held id is granted again', async () => {
    const orgId = (await createTestOrganization()).id;
    const [last, beyond] = [await liveTarget(orgId, field), await liveTarget(orgId, field)];
    const userId = await seedUser(orgId, { [field]: fillers(LIMIT - 1) });
    const user = keys.user(orgId, userId);

    await grantToUser(orgId, userId, grantTarget(orgId, field, last));
    const atLimit = await setOf(user, field);
    expect(atLimit.size).toBe(LIMIT);

    const refused = grantToUser(orgId, userId, grantTarget(orgId, field, beyond));
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(
      `A user holds at most ${LIMIT} ${IN_WORDS[field]}; revoke one first`,
    );
    expect(await setOf(user, field)).toEqual(atLimit);

    // Granting what the user holds stays an idempotent success at the limit.
    await grantToUser(orgId, userId, grantTarget(orgId, field, last));
    expect(await setOf(user, field)).toEqual(atLimit);

    await revokeFromUser(orgId, userId, field, last);
    await grantToUser(orgId, userId, grantTarget(orgId, field, beyond));
    expect((await setOf(user, field)).has(beyond)).toBe(true);
  });

  it('a missing user is still NotFound, a missing target still names the target', async () => {
    const orgId = (await createTestOrganization()).id;
    const target = await liveTarget(orgId, field);
    const missing = randomUUID();
    await expect(grantToUser(orgId, missing, grantTarget(orgId, field, target))).rejects.toMatchObject({
      constructor: NotFound,
      entity: 'User',
      id: missing,
    });
    const userId = await seedUser(orgId, { [field]: fillers(LIMIT) });
    await expect(
      grantToUser(orgId, userId, grantTarget(orgId, field, 'no-such-target')),
    ).rejects.toBeInstanceOf(NotFound);
  });
});

describe.each(FIELDS)(`a user group holds at most ${LIMIT} %s`, (field) => {
  it('up to the limit; one more is a Conflict that changes nothing; a held id is assigned again', async () => {
    const orgId = (await createTestOrganization()).id;
    const [last, beyond] = [await liveTarget(orgId, field), await liveTarget(orgId, field)];
    const groupId = await putTestUserGroup(orgId, { [field]: fillers(LIMIT - 1) });
    const group = keys.userGroup(orgId, groupId);
    const assign = (id: string) =>
      changeUserGroupGrant(orgId, groupId, grantTarget(orgId, field, id), 'ADD', 't');

    await assign(last);
    const atLimit = await setOf(group, field);
    expect(atLimit.size).toBe(LIMIT);
    const version = (await getItem(group))?.version;

    await expect(assign(beyond)).rejects.toThrow(
      new Conflict(
        'User group',
        `A user group holds at most ${LIMIT} ${IN_WORDS[field]}; unassign one first`,
      ),
    );
    expect(await setOf(group, field)).toEqual(atLimit);
    expect((await getItem(group))?.version).toBe(version);

    await assign(last);
    expect(await setOf(group, field)).toEqual(atLimit);

    await changeUserGroupGrant(orgId, groupId, grantTarget(orgId, field, last), 'DELETE', 't');
    await assign(beyond);
    expect((await setOf(group, field)).has(beyond)).toBe(true);
  });

  it('a missing group, or one being deleted, is still NotFound, also at the limit', async () => {
    const orgId = (await createTestOrganization()).id;
    const target = await liveTarget(orgId, field);
    const assign = (groupId: string) =>
      changeUserGroupGrant(orgId, groupId, grantTarget(orgId, field, target), 'ADD', 't');
    const missing = randomUUID();
    await expect(assign(missing)).rejects.toMatchObject({
      constructor: NotFound,
      entity: 'User group',
      id: missing,
    });
    const deleting = await putTestUserGroup(orgId, { [field]: fillers(LIMIT) });
    await hideForDeletion(orgId, deleting, Date.now());
    await expect(assign(deleting)).rejects.toMatchObject({ constructor: NotFound, entity: 'User group' });
  });
});

describe(`a user belongs to at most ${LIMIT} user groups`, () => {
  it('up to the limit; one more is a Conflict naming the user; joining a group again succeeds', async () => {
    const orgId = (await createTestOrganization()).id;
    const [last, beyond] = [
      await createUserGroup({ organizationId: orgId, name: 'Last', createdBy: 't' }),
      await createUserGroup({ organizationId: orgId, name: 'Beyond', createdBy: 't' }),
    ];
    const userId = await seedUser(orgId, { userGroups: fillers(LIMIT - 1) });
    const user = keys.user(orgId, userId);

    await addUserToGroup(orgId, userId, last.id);
    const atLimit = await setOf(user, 'userGroups');
    expect(atLimit.size).toBe(LIMIT);

    const refused = addUserToGroup(orgId, userId, beyond.id);
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(`User ${userId} is in ${LIMIT} user groups already`);
    expect(await setOf(user, 'userGroups')).toEqual(atLimit);
    expect(await memberIdsOf(orgId, beyond.id)).toEqual([]);

    await addUserToGroup(orgId, userId, last.id);
    expect(await setOf(user, 'userGroups')).toEqual(atLimit);
    expect(await memberIdsOf(orgId, last.id)).toEqual([userId]);
  });

  it('a missing user is still NotFound', async () => {
    const orgId = (await createTestOrganization()).id;
    const group = await createUserGroup({ organizationId: orgId, name: 'G', createdBy: 't' });
    const missing = randomUUID();
    await expect(addUserToGroup(orgId, missing, group.id)).rejects.toMatchObject({
      constructor: NotFound,
      entity: 'User',
      id: missing,
    });
    expect(await memberIdsOf(orgId, group.id)).toEqual([]);
  });

  it('duplicating a group one of whose members is at the limit is refused, naming the member; nothing is left', async () => {
    const orgId = (await createTestOrganization()).id;
    const source = await createUserGroup({ organizationId: orgId, name: 'Source', createdBy: 't' });
    const full = await seedUser(orgId, { userGroups: [source.id, ...fillers(LIMIT - 1)] });
    // Members in several transactions of 50, some of which succeed before the undo.
    const otherItems = Array.from({ length: 120 }, () => userItem(orgId, { userGroups: [source.id] }));
    const others = otherItems.map((item) => String(item.id));
    await batchPut(otherItems);
    await batchPut(
      [full, ...others].map((userId) => ({
        ...keys.groupMember(orgId, source.id, userId),
        userId,
        groupId: source.id,
        addedAt: 1,
      })),
    );
    const fullBefore = await setOf(keys.user(orgId, full), 'userGroups');

    const refused = duplicateUserGroup(orgId, source.id, 't', async () => {});
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(`User ${full} is in ${LIMIT} user groups already`);

    // No copy: no group item, name guard or membership besides the source's, and every member as before.
    const partition = await queryPartition(keys.organizationPartition(orgId), undefined, {
      consistent: true,
    });
    const sortKeys = partition.map((item) => String(item.sk));
    expect(sortKeys.filter((sk) => sk.startsWith('GROUP#'))).toEqual([`GROUP#${source.id}`]);
    expect(sortKeys.filter((sk) => sk.startsWith('GROUPNAME#'))).toEqual(['GROUPNAME#source']);
    expect(
      sortKeys.filter((sk) => sk.startsWith('GROUPMEMBER#') && !sk.startsWith(`GROUPMEMBER#${source.id}#`)),
    ).toEqual([]);
    expect(await countUserGroups(orgId)).toBe(1);
    expect(await setOf(keys.user(orgId, full), 'userGroups')).toEqual(fullBefore);
    for (const userId of others) {
      expect([...(await setOf(keys.user(orgId, userId), 'userGroups'))]).toEqual([source.id]);
    }

    // Once the member leaves a group, the duplicate goes through.
    const [left] = [...fullBefore].filter((id) => id !== source.id);
    await removeUserFromGroup(orgId, full, left as string);
    const copy = await duplicateUserGroup(orgId, source.id, 't', async () => {});
    expect(copy.name).toBe('Copy of Source');
    expect((await memberIdsOf(orgId, copy.id)).length).toBe(others.length + 1);
  });
});
