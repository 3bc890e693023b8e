import { beforeAll, describe, expect, it } from 'vitest';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  createTestOrganization,
  errorFields,
  nextLink,
  useFixture,
  useService,
} from '../../support/service.js';

/** GET /users (filter, order, paging) and PUT /users/{id}/setUserStatus, in a fresh organization. */
const service = useService();
let orgId: string;
let token: string;
/** Seven users in creation order. */
const users: string[] = [];

beforeAll(async () => {
  orgId = (await createTestOrganization()).id;
  const admin = await service.callerWith(['USER.ADD', 'USER.LIST', 'USER.DELETE'], { organization: orgId });
  token = admin.token;
  for (let index = 0; index < 7; index++) {
    users.push(await service.createUser({ as: admin, name: `User ${index}` }));
  }
});

const list = (query = '') => service.call<ApiUser[]>('GET', `/idp/users${query}`, { token });
const idsOf = (response: { body: ApiUser[] }) => response.body.map((user) => user.id);
const setStatus = (id: string, userStatus: string, as = token) =>
  service.call<ApiError>('PUT', `/idp/users/${id}/setUserStatus`, { token: as, body: { userStatus } });

const pick = (...indexes: number[]) => indexes.map((index) => users[index]);

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('GET /users', () => {
  it('lists the active users in creation order, without a Link header when all fit', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(idsOf(response)).toEqual(users);
    expect(response.body.map((user) => user.name)).toEqual(users.map((_, index) => `User ${index}`));
    expect(response.headers.get('link')).toBeNull();
    expect(idsOf(await list('?fetchInactive=false'))).toEqual(users);
  });

  it('pages with page and pageSize: no overlap, Link rel="next" on every page but the last', async () => {
    const pages = await Promise.all([0, 1, 2].map((page) => list(`?page=${page}&pageSize=3`)));
    expect(pages.map(idsOf)).toEqual([pick(0, 1, 2), pick(3, 4, 5), pick(6)]);
    expect(nextLink(pages[0]?.headers as Headers)).toBe('/idp/users?page=1&pageSize=3&after=3');
    expect(nextLink(pages[1]?.headers as Headers)).toBe('/idp/users?page=2&pageSize=3&after=6');
    expect(pages[2]?.headers.get('link')).toBeNull();
    expect(pages[0]?.headers.get('link')).toBe(
      `<${service.baseUrl}/idp/users?page=1&pageSize=3&after=3>; rel="next"`,
    );
    expect(idsOf(await list('?page=3&pageSize=3'))).toEqual([]);
    expect(idsOf(await list('?page=0&pageSize=7'))).toEqual(users);
    expect((await list('?page=0&pageSize=7')).headers.get('link')).toBeNull();
    expect(nextLink((await list('?page=0&pageSize=6')).headers)).toBe('/idp/users?page=1&pageSize=6&after=6');
  });

  it('following the Link headers walks the whole list once', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/idp/users?pageSize=2';
    let calls = 0;
    while (next) {
      const response = await service.call<ApiUser[]>('GET', next, { token });
      expect(response.status).toBe(200);
      seen.push(...idsOf(response));
      next = nextLink(response.headers);
      calls++;
    }
    expect(calls).toBe(4);
    expect(seen).toEqual(users);
  });

  it("starts the Link's next page after the last user shown: one who leaves the list meanwhile moves nothing", async () => {
    const first = await list('?pageSize=3');
    expect(idsOf(first)).toEqual(pick(0, 1, 2));
    const next = nextLink(first.headers) as string;
    expect(next).toBe('/idp/users?page=1&pageSize=3&after=3');
    // Positive control: the page by number holds the next three while nothing changes.
    expect(idsOf(await list('?page=1&pageSize=3'))).toEqual(pick(3, 4, 5));
    // The first user, already shown, is deactivated before the next page is read.
    expect((await setStatus(pick(0)[0] as string, 'INACTIVE')).status).toBe(204);
    try {
      // By number, the list moved up one place: user 3 is on neither page.
      expect(idsOf(await list('?page=1&pageSize=3'))).toEqual(pick(4, 5, 6));
      // By the Link, the next page starts after user 2.
      expect(idsOf(await service.call<ApiUser[]>('GET', next, { token }))).toEqual(pick(3, 4, 5));
    } finally {
      expect((await setStatus(pick(0)[0] as string, 'ACTIVE')).status).toBe(204);
    }
  });

  it.each([
    ['?after=-1', 'query.after'],
    ['?after=1.5', 'query.after'],
    ['?after=1000000000000', 'query.after'],
    ['?pageSize=0', 'query.pageSize'],
    ['?pageSize=1001', 'query.pageSize'],
    ['?page=-1', 'query.page'],
    ['?page=abc', 'query.page'],
    ['?page=1.5', 'query.page'],
    ['?fetchInactive=yes', 'query.fetchInactive'],
    ['?foo=1', 'query.foo'],
  ])('answers 400 for %s', async (query, field) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it('accepts pageSize 1 and 1000', async () => {
    expect(idsOf(await list('?pageSize=1&page=6'))).toEqual(pick(6));
    expect(idsOf(await list('?pageSize=1000'))).toEqual(users);
  });

  it("never shows another organization's users", async () => {
    const ownIds = idsOf(await list());
    expect(ownIds).not.toContain(foreign.user.id);
    const theirs = await service.call<ApiUser[]>('GET', '/idp/users', { token: foreign.token });
    expect(theirs.body.map((user) => user.id)).toEqual([foreign.user.id]);
  });
});

describe('PUT /users/{id}/setUserStatus and the two listings', () => {
  it('moves a user between the ACTIVE and INACTIVE listings; paging stays exact', async () => {
    expect(idsOf(await list('?fetchInactive=true'))).toEqual([]);
    const response = await setStatus(users[1] as string, 'INACTIVE');
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await getUser(orgId, users[1] as string, true))?.status).toBe('INACTIVE');

    expect(idsOf(await list('?fetchInactive=true'))).toEqual(pick(1));
    expect(idsOf(await list())).toEqual(pick(0, 2, 3, 4, 5, 6));
    const page0 = await list('?page=0&pageSize=3');
    const page1 = await list('?page=1&pageSize=3');
    expect([idsOf(page0), idsOf(page1)]).toEqual([pick(0, 2, 3), pick(4, 5, 6)]);
    expect(nextLink(page0.headers)).toBe('/idp/users?page=1&pageSize=3&after=4');
    expect(page1.headers.get('link')).toBeNull();
    expect(idsOf(await list('?page=2&pageSize=3'))).toEqual([]);

    for (const index of [4, 5, 6])
      expect((await setStatus(users[index] as string, 'INACTIVE')).status).toBe(204);
    const inactive0 = await list('?fetchInactive=true&pageSize=2');
    expect(idsOf(inactive0)).toEqual(pick(1, 4));
    expect(nextLink(inactive0.headers)).toBe('/idp/users?page=1&pageSize=2&fetchInactive=true&after=5');
    const inactive1 = await service.call<ApiUser[]>('GET', nextLink(inactive0.headers) as string, { token });
    expect(idsOf(inactive1)).toEqual(pick(5, 6));
    expect(inactive1.headers.get('link')).toBeNull();
    expect(idsOf(await list())).toEqual(pick(0, 2, 3));
  });

  it('reactivating puts a user back at its creation position', async () => {
    expect((await setStatus(users[5] as string, 'ACTIVE')).status).toBe(204);
    expect((await setStatus(users[1] as string, 'ACTIVE')).status).toBe(204);
    expect(idsOf(await list())).toEqual(pick(0, 1, 2, 3, 5));
    expect(idsOf(await list('?page=1&pageSize=2'))).toEqual(pick(2, 3));
    expect(idsOf(await list('?page=2&pageSize=2'))).toEqual(pick(5));
    expect(idsOf(await list('?fetchInactive=true'))).toEqual(pick(4, 6));
  });

  it('is idempotent: setting the current status again is 204 and changes nothing', async () => {
    expect((await setStatus(users[0] as string, 'ACTIVE')).status).toBe(204);
    expect((await setStatus(users[4] as string, 'INACTIVE')).status).toBe(204);
    expect(idsOf(await list())).toEqual(pick(0, 1, 2, 3, 5));
    expect(idsOf(await list('?fetchInactive=true'))).toEqual(pick(4, 6));
  });

  it('an inactive user can still be read by id', async () => {
    const response = await service.call<ApiUser>('GET', `/idp/users/${users[4]}`, { token });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(users[4]);
  });

  it.each([
    ['an unknown status', { userStatus: 'DELETED' }, 'body.userStatus'],
    ['a missing status', {}, 'body.userStatus'],
    ['an unknown key', { userStatus: 'ACTIVE', foo: 1 }, 'body.foo'],
    ['a wrong type', { userStatus: 1 }, 'body.userStatus'],
  ])('answers 400 for %s', async (_label, body, field) => {
    const response = await service.call<ApiError>('PUT', `/idp/users/${users[0]}/setUserStatus`, {
      token,
      body,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it('answers 404 for an unknown user and for a user of another organization, changing nothing', async () => {
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await setStatus(id, 'INACTIVE');
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User not found');
    }
    expect((await getUser(foreign.orgId, foreign.user.id, true))?.status).toBe('ACTIVE');
  });

  it('answers 403 without USER.DELETE', async () => {
    const { token: narrow } = await service.callerWith(['USER.UPDATE', 'USER.ADD'], { organization: orgId });
    const response = await setStatus(users[0] as string, 'INACTIVE', narrow);
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('Missing permission: USER.DELETE');
    expect(idsOf(await list())).toContain(users[0]);
  });
});
