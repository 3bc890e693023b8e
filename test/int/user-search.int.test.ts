import { describe, expect, it } from 'vitest';
import { NotFound } from '../../shared/domain/errors.js';
import type { UserSearchCriterion, UserSearchFilters } from '../../shared/domain/user-search.js';
import { batchPut } from '../../shared/store/batch.js';
import { keys } from '../../shared/store/keys.js';
import { addUserToGroup } from '../../shared/store/user-grants.js';
import { createUserGroup } from '../../shared/store/user-group-repository.js';
import {
  createUser,
  setUserStatus,
  setUserType,
  updateUserProfile,
} from '../../shared/store/user-repository.js';
import { indexUsersForSearch, searchUsers } from '../../shared/store/user-search.js';
import { createTestOrganization, getItem, useDatabase } from '../support/service.js';
import { everySearchPage } from '../support/user-search-pages.js';
import { seedUsers } from '../support/user-seeding.js';

useDatabase();

const newUser = async (organizationId: string, email: string, name: string) =>
  (await createUser({ organizationId, email, name, userType: 'STANDARD', createdBy: 'test' })).user.id;

const emailsFound = async (orgId: string, criterion: UserSearchCriterion, filters: UserSearchFilters = {}) =>
  (await everySearchPage(orgId, criterion, filters)).flat();

describe('user search', () => {
  it('finds an exact email and email prefixes case-insensitively, in email order', async () => {
    const org = (await createTestOrganization()).id;
    const other = (await createTestOrganization()).id;
    await newUser(org, 'Ann.Lee@Example.com', 'Ann Lee');
    await newUser(org, 'anne@example.com', 'Anne Marie');
    await newUser(org, 'bob@example.com', 'Bob');
    await newUser(other, 'ann.other@example.com', 'Ann Other');

    expect(await emailsFound(org, { by: 'email', value: 'ANN.LEE@EXAMPLE.COM' })).toEqual([
      'Ann.Lee@Example.com',
    ]);
    expect(await emailsFound(org, { by: 'email', value: 'ann.lee@example.co' })).toEqual([]);
    expect(await emailsFound(org, { by: 'email', value: 'ann.other@example.com' })).toEqual([]);
    expect(await emailsFound(org, { by: 'emailPrefix', value: 'ANN' })).toEqual([
      'Ann.Lee@Example.com',
      'anne@example.com',
    ]);
    expect(await emailsFound(org, { by: 'emailPrefix', value: 'b' })).toEqual(['bob@example.com']);
    expect(await emailsFound(org, { by: 'emailPrefix', value: 'c' })).toEqual([]);
  });

  it('finds name prefixes case- and normalisation-insensitively, never by the id the entry ends in', async () => {
    const org = (await createTestOrganization()).id;
    await newUser(org, 'ann@example.com', 'Ann');
    await newUser(org, 'anna@example.com', 'ANNA Berg');
    // Composed and decomposed Ä: one name, however typed.
    await newUser(org, 'angstrom@example.com', 'Ängström');

    expect(await emailsFound(org, { by: 'namePrefix', value: 'ann' })).toEqual([
      'ann@example.com',
      'anna@example.com',
    ]);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'anna b' })).toEqual(['anna@example.com']);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'A\u0308ngs' })).toEqual([
      'angstrom@example.com',
    ]);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'äNGS' })).toEqual(['angstrom@example.com']);
    // Names are indexed as "<name>#<id>": a prefix running past the name finds nobody.
    expect(await emailsFound(org, { by: 'namePrefix', value: 'ann#' })).toEqual([]);
    // A name that NFKC makes longer than a sort key holds is indexed by its first 900 bytes.
    await newUser(org, 'long@example.com', '\uFDFA'.repeat(200));
    expect(await emailsFound(org, { by: 'namePrefix', value: '\uFDFA'.repeat(3) })).toEqual([
      'long@example.com',
    ]);
    expect(await emailsFound(org, { by: 'namePrefix', value: '\uFDFA'.repeat(199) })).toEqual([
      'long@example.com',
    ]);
    expect(await emailsFound(org, { by: 'namePrefix', value: `${'\uFDFA'.repeat(199)}x` })).toEqual([]);
  });

  it('follows renames and email changes, and filters by status and user type', async () => {
    const org = (await createTestOrganization()).id;
    const carl = await newUser(org, 'p.carl@example.com', 'Carl');
    const dora = await newUser(org, 'p.dora@example.com', 'Dora');
    await newUser(org, 'p.emil@example.com', 'Emil');
    await updateUserProfile(org, carl, { name: 'Karl', email: 'p.karl@example.com' });
    await setUserStatus(org, dora, 'INACTIVE');
    await setUserType(org, carl, 'RESTRICTED');

    expect(await emailsFound(org, { by: 'emailPrefix', value: 'p.carl' })).toEqual([]);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'carl' })).toEqual([]);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'karl' })).toEqual(['p.karl@example.com']);
    expect(await emailsFound(org, { by: 'email', value: 'p.karl@example.com' })).toEqual([
      'p.karl@example.com',
    ]);

    const everyone: UserSearchCriterion = { by: 'emailPrefix', value: 'p.' };
    expect(await emailsFound(org, everyone)).toEqual([
      'p.dora@example.com',
      'p.emil@example.com',
      'p.karl@example.com',
    ]);
    expect(await emailsFound(org, everyone, { status: 'INACTIVE' })).toEqual(['p.dora@example.com']);
    expect(await emailsFound(org, everyone, { userType: 'RESTRICTED' })).toEqual(['p.karl@example.com']);
    expect(await emailsFound(org, everyone, { status: 'ACTIVE', userType: 'STANDARD' })).toEqual([
      'p.emil@example.com',
    ]);
  });

  it("finds a group's members, filtered; another organization's or an unknown group is not found", async () => {
    const org = (await createTestOrganization()).id;
    const other = (await createTestOrganization()).id;
    const group = await createUserGroup({ organizationId: org, name: 'Engineers', createdBy: 'test' });
    const members = await Promise.all(
      ['e1', 'e2', 'e3'].map((name) => newUser(org, `${name}@example.com`, name)),
    );
    await newUser(org, 'outsider@example.com', 'Outsider');
    for (const id of members) await addUserToGroup(org, id, group.id);
    await setUserStatus(org, members[1] as string, 'INACTIVE');

    const memberPages = { roundTrips: 2, commands: ['BatchGetCommand', 'GetCommand', 'QueryCommand'] };
    const found = (
      await everySearchPage(org, { by: 'userGroupId', value: group.id }, {}, 2, memberPages)
    ).flat();
    expect(found.sort()).toEqual(['e1@example.com', 'e2@example.com', 'e3@example.com']);
    expect(
      (
        await everySearchPage(
          org,
          { by: 'userGroupId', value: group.id },
          { status: 'INACTIVE' },
          100,
          memberPages,
        )
      ).flat(),
    ).toEqual(['e2@example.com']);

    await expect(
      searchUsers(other, { by: 'userGroupId', value: group.id }, {}, { limit: 10 }),
    ).rejects.toBeInstanceOf(NotFound);
    await expect(
      searchUsers(org, { by: 'userGroupId', value: 'no-such-group' }, {}, { limit: 10 }),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('finds users written before search existed once they are indexed, and indexing again changes nothing', async () => {
    const org = (await createTestOrganization()).id;
    const [id] = await seedUsers(
      org,
      1,
      () => true,
      () => 'ACTIVE',
    );
    const { gsi1pk, gsi1sk, gsi8pk, gsi8sk, ...unindexed } =
      (await getItem(keys.user(org, id as string))) ?? {};
    expect([gsi1pk, gsi1sk, gsi8pk, gsi8sk].every((value) => typeof value === 'string')).toBe(true);
    await batchPut([unindexed]);
    const byEmail = { by: 'email', value: 'user1@scale.example' } as const;
    expect(await emailsFound(org, byEmail)).toEqual([]);

    expect(await indexUsersForSearch(org)).toBe(1);
    expect(await emailsFound(org, byEmail)).toEqual(['user1@scale.example']);
    expect(await emailsFound(org, { by: 'namePrefix', value: 'user 1 with' })).toEqual([
      'user1@scale.example',
    ]);
    const indexed = await getItem(keys.user(org, id as string));
    expect(await indexUsersForSearch(org)).toBe(1);
    expect(await getItem(keys.user(org, id as string))).toEqual(indexed);
  });
});
