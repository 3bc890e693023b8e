import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiUser } from '../../support/service.js';
import { createTestOrganization, nextLink, useService } from '../../support/service.js';
import { seedUsers } from '../../support/user-seeding.js';

/**
 * Paging over more users than one bucket of the paging counters holds (100 sequence numbers):
 * pages that start in, and cross into, later buckets, before and after deactivations.
 */
const service = useService();
let token: string;
/** All users, in creation (sequence) order. */
let users: string[] = [];

const COUNT = 230;

beforeAll(async () => {
  const orgId = (await createTestOrganization()).id;
  const admin = await service.callerWith(['USER.ADD', 'USER.LIST', 'USER.DELETE'], { organization: orgId });
  token = admin.token;
  // Written straight to the table the way createUser stores them, sequence numbers 1 to COUNT.
  users = await seedUsers(
    orgId,
    COUNT,
    () => true,
    () => 'ACTIVE',
  );
});

const page = async (query: string) => {
  const response = await service.call<ApiUser[]>('GET', `/idp/users?${query}`, { token });
  expect(response.status).toBe(200);
  return { ids: response.body.map((user) => user.id), next: nextLink(response.headers) };
};

/** Follows Link headers from the first page; answers every id seen and the number of pages. */
const walk = async (query: string) => {
  const ids: string[] = [];
  let pages = 0;
  let next: string | undefined = `/idp/users?${query}`;
  while (next) {
    const response = await service.call<ApiUser[]>('GET', next, { token });
    ids.push(...response.body.map((user) => user.id));
    next = nextLink(response.headers);
    pages++;
  }
  return { ids, pages };
};

describe('paging across buckets', () => {
  it('returns all users in creation order with the default page size', async () => {
    const all = await page('');
    expect(all.ids).toEqual(users);
    expect(all.next).toBeUndefined();
  });

  it.each([50, 97, 100, 229, 230])('walks every user once with pageSize %i', async (pageSize) => {
    const { ids, pages } = await walk(`pageSize=${pageSize}`);
    expect(ids).toEqual(users);
    expect(pages).toBe(Math.ceil(COUNT / pageSize));
  });

  it('starts a page directly in a later bucket', async () => {
    expect((await page('page=2&pageSize=100')).ids).toEqual(users.slice(200, 230));
    expect((await page('page=1&pageSize=150')).ids).toEqual(users.slice(150, 230));
    const crossing = await page('page=9&pageSize=11');
    expect(crossing.ids).toEqual(users.slice(99, 110));
    expect(crossing.next).toBe('/idp/users?page=10&pageSize=11&after=110');
    expect((await page('page=23&pageSize=10')).ids).toEqual([]);
    expect((await page('page=22&pageSize=10')).next).toBeUndefined();
  });

  it('stays exact after deactivations spread over the buckets', async () => {
    const positions = [0, 5, 98, 99, 100, 150, 199, 200, 229];
    const deactivated = positions.map((position) => users[position] as string);
    for (const id of deactivated) {
      const response = await service.call('PUT', `/idp/users/${id}/setUserStatus`, {
        token,
        body: { userStatus: 'INACTIVE' },
      });
      expect(response.status).toBe(204);
    }
    const active = users.filter((id) => !deactivated.includes(id));
    for (const pageSize of [1000, 97, 50, 13]) {
      expect((await walk(`pageSize=${pageSize}`)).ids).toEqual(active);
    }
    expect((await page('page=1&pageSize=100')).ids).toEqual(active.slice(100, 200));
    expect((await page('page=2&pageSize=100')).ids).toEqual(active.slice(200));
    const inactive = await walk('fetchInactive=true&pageSize=4');
    expect(inactive).toEqual({ ids: deactivated, pages: 3 });
    expect((await page('fetchInactive=true&page=1&pageSize=4')).ids).toEqual(deactivated.slice(4, 8));

    // Reactivate half of them: each returns to its creation position.
    const back = deactivated.filter((_, index) => index % 2 === 0);
    for (const id of back) {
      await service.call('PUT', `/idp/users/${id}/setUserStatus`, { token, body: { userStatus: 'ACTIVE' } });
    }
    const stillInactive = deactivated.filter((id) => !back.includes(id));
    expect((await walk('pageSize=37')).ids).toEqual(users.filter((id) => !stillInactive.includes(id)));
    expect((await walk('fetchInactive=true&pageSize=3')).ids).toEqual(stillInactive);
  });
});
