import { beforeAll, describe, expect, it } from 'vitest';
import type { UserStatus } from '../../shared/schemas/users.js';
import { createUser, listUsers, setUserStatus } from '../../shared/store/user-repository.js';
import { createTestOrganization, useDatabase } from '../support/service.js';
import { everySearchPage } from '../support/user-search-pages.js';
import { seedUsers } from '../support/user-seeding.js';

useDatabase();

/** Every page of a listing, concatenated. */
const readAll = async (orgId: string, status: UserStatus, pageSize: number) => {
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const result = await listUsers(orgId, status, page, pageSize);
    ids.push(...result.users.map((user) => user.id));
    if (!result.hasMore) {
      expect((await listUsers(orgId, status, page + 1, pageSize)).users).toEqual([]);
      return ids;
    }
  }
};

describe('user listing through the repository', () => {
  it('pages match creation order per status after status changes, for several page sizes', async () => {
    const org = (await createTestOrganization()).id;
    // Created 23 at a time; creation order is the order of the sequence each creation took.
    const users: { id: string; sequence: number }[] = [];
    for (let first = 0; first < 230; first += 23) {
      const batch = Array.from({ length: 23 }, (_, offset) =>
        createUser({
          organizationId: org,
          email: `u${first + offset}@x.io`,
          name: `U${first + offset}`,
          userType: 'STANDARD',
          createdBy: 't',
        }),
      );
      users.push(...(await Promise.all(batch)).map(({ user }) => user));
    }
    const created = users.sort((a, b) => a.sequence - b.sequence).map((user) => user.id);
    const inactive = new Set(created.filter((_, index) => index % 3 === 0 || (index > 90 && index < 130)));
    await Promise.all([...inactive].map((id) => setUserStatus(org, id, 'INACTIVE')));
    // Flip a few back, concurrently with each other.
    const reactivated = [...inactive].slice(0, 10);
    await Promise.all(reactivated.map((id) => setUserStatus(org, id, 'ACTIVE')));
    for (const id of reactivated) inactive.delete(id);

    const expectedActive = created.filter((id) => !inactive.has(id));
    const expectedInactive = created.filter((id) => inactive.has(id));
    // Small pages (7), pages across buckets (100), one page for all (1000).
    for (const pageSize of [7, 100, 1000]) {
      expect(await readAll(org, 'ACTIVE', pageSize)).toEqual(expectedActive);
      expect(await readAll(org, 'INACTIVE', pageSize)).toEqual(expectedInactive);
    }
  });
});

describe('users at scale', () => {
  const total = 42_000;
  // Interleaved: every other user is INACTIVE, so each listing skips the other's items.
  const statusOf = (sequence: number) => (sequence % 2 === 0 ? 'INACTIVE' : 'ACTIVE');
  // Pages 0 and 19 of 1000 of either listing reach sequences 1-2,002 and 38,001-40,002 (and one
  // more each, to tell that another page follows); their buckets begin at 0 and 38,000: 4,201
  // users in all, which the searches below read too.
  const reachable = (sequence: number) => sequence <= 2_100 || (sequence >= 38_000 && sequence <= 40_100);
  let org: string;

  beforeAll(async () => {
    org = (await createTestOrganization()).id;
    const started = Date.now();
    await seedUsers(org, total, reachable, statusOf);
    console.log(`seeded the bucket counts of ${total} users (half INACTIVE) in ${Date.now() - started} ms`);
  }, 600_000);

  it('reads page 19 of 1000 for at most twice the capacity of page 0, in both status lists', async () => {
    for (const status of ['ACTIVE', 'INACTIVE'] as const) {
      const first = await listUsers(org, status, 0, 1000);
      const nineteenth = await listUsers(org, status, 19, 1000);
      console.log(
        `${status}: page 0 consumed ${first.consumedCapacity} RCU, page 19 consumed ${nineteenth.consumedCapacity} RCU`,
      );
      expect(first.users).toHaveLength(1000);
      expect(nineteenth.users).toHaveLength(1000);
      expect(first.consumedCapacity).toBeGreaterThan(0);
      expect(nineteenth.consumedCapacity).toBeLessThanOrEqual(2 * first.consumedCapacity);
      // The 19,001st user of the listing: sequence 38,001 (ACTIVE) or 38,002 (INACTIVE).
      const expectedFirstSequence = status === 'ACTIVE' ? 38_001 : 38_002;
      expect(nineteenth.users[0]?.sequence).toBe(expectedFirstSequence);
      expect(nineteenth.users.every((user) => user.status === status)).toBe(true);
      expect(nineteenth.hasMore).toBe(true);
    }
  });

  it('searches 4,201 users: each page one Query, each user on exactly one page, with and without filters', async () => {
    const emailOf = (sequence: number) => `user${sequence}@scale.example`;
    const sequences = Array.from({ length: total }, (_, index) => index + 1).filter(reachable);
    expect(sequences).toHaveLength(4_201);

    const all = await everySearchPage(org, { by: 'emailPrefix', value: 'USER' }, {}, 1000);
    expect(all).toHaveLength(5);
    expect(all.flat()).toEqual(sequences.map(emailOf).sort());

    // Names "User <n> with a name…": the prefix "user 1" is 1, 10-19, 100-199 and 1000-1999.
    const named = (await everySearchPage(org, { by: 'namePrefix', value: 'user 1' }, {}, 100)).flat();
    const expected = sequences.filter((sequence) => String(sequence).startsWith('1')).map(emailOf);
    expect(named.sort()).toEqual(expected.sort());
    expect(new Set(named).size).toBe(named.length);

    const inactive = await everySearchPage(
      org,
      { by: 'emailPrefix', value: 'user' },
      { status: 'INACTIVE' },
      100,
    );
    expect(inactive.flat()).toEqual(
      sequences
        .filter((sequence) => statusOf(sequence) === 'INACTIVE')
        .map(emailOf)
        .sort(),
    );
    // Full pages but the last: a filtered page reads on until it has `limit` users.
    expect(inactive.slice(0, -1).every((page) => page.length === 100)).toBe(true);
  });
});
