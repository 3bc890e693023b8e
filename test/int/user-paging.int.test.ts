import { describe, expect, it } from 'vitest';
import type { UserStatus } from '../../shared/schemas/users.js';
import { createUser, listUsers, setUserStatus } from '../../shared/store/user-repository.js';
import { createTestOrganization, useDatabase } from '../support/service.js';
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
    const created: string[] = [];
    for (let index = 0; index < 230; index++) {
      created.push(
        (
          await createUser({
            organizationId: org,
            email: `u${index}@x.io`,
            name: `U${index}`,
            userType: 'STANDARD',
            createdBy: 't',
          })
        ).user.id,
      );
    }
    const inactive = new Set(created.filter((_, index) => index % 3 === 0 || (index > 90 && index < 130)));
    await Promise.all([...inactive].map((id) => setUserStatus(org, id, 'INACTIVE')));
    // Flip a few back, concurrently with each other.
    const reactivated = [...inactive].slice(0, 10);
    await Promise.all(reactivated.map((id) => setUserStatus(org, id, 'ACTIVE')));
    for (const id of reactivated) inactive.delete(id);

    const expectedActive = created.filter((id) => !inactive.has(id));
    const expectedInactive = created.filter((id) => inactive.has(id));
    for (const pageSize of [1, 7, 100, 1000]) {
      expect(await readAll(org, 'ACTIVE', pageSize)).toEqual(expectedActive);
      expect(await readAll(org, 'INACTIVE', pageSize)).toEqual(expectedInactive);
    }
  });
});

describe('user listing at scale', () => {
  it('reads page 19 of 1000 for at most twice the capacity of page 0, in both status lists', async () => {
    const org = (await createTestOrganization()).id;
    const total = 42_000;
    // Interleaved: every other user is INACTIVE, so each listing skips the other's items.
    const started = Date.now();
    // Pages 0 and 19 of 1000 of either listing reach sequences 1-2,002 and 38,001-40,002 (and one
    // more each, to tell that another page follows); their buckets begin at 0 and 38,000.
    const reachable = (sequence: number) => sequence <= 2_100 || (sequence >= 38_000 && sequence <= 40_100);
    await seedUsers(org, total, reachable, (sequence) => (sequence % 2 === 0 ? 'INACTIVE' : 'ACTIVE'));
    console.log(`seeded the bucket counts of ${total} users (half INACTIVE) in ${Date.now() - started} ms`);

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
  }, 600_000);
});
