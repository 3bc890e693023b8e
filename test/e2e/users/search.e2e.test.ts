import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  createTestOrganization,
  errorFields,
  nextLink,
  useFixture,
  useService,
} from '../../support/service.js';

/** GET /users/search: the HTTP side (the store's search is test/int/user-search.int.test.ts). */
const service = useService();
let token: string;
let groupId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const orgId = (await createTestOrganization()).id;
  const admin = await service.callerWith(
    ['USER.ADD', 'USER.LIST', 'USER.DELETE', 'USER_GROUP.ADD', 'USER_GROUP.GRANT'],
    {
      organization: orgId,
    },
  );
  token = admin.token;
  for (const name of ['Searcher Ada', 'Searcher Ben', 'Searcher Cy', 'Other Dee'])
    ids[name] = await service.createUser({
      as: admin,
      name,
      email: `${name.replace(' ', '.').toLowerCase()}@search.example`,
    });
  const group = await service.call<{ userGroup: { id: string } }>('POST', '/idp/userGroups', {
    token,
    body: { name: 'Searchers' },
  });
  groupId = group.body.userGroup.id;
  for (const name of ['Searcher Ada', 'Searcher Cy']) {
    const added = await service.call('PUT', `/idp/users/${ids[name]}/userGroups/${groupId}`, { token });
    expect(added.body).toMatchObject({ id: ids[name] });
  }
  await service.call('PUT', `/idp/users/${ids['Searcher Cy']}/setUserStatus`, {
    token,
    body: { userStatus: 'INACTIVE' },
  });
});

const search = (query: string, as = token) =>
  service.call<ApiUser[] & ApiError>('GET', `/idp/users/search?${query}`, { token: as });
const names = (response: { body: ApiUser[] }) => response.body.map((user) => user.name);

const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('GET /users/search', () => {
  it('pages a name prefix with Link rel="next" until the last page, in name order', async () => {
    const first = await search('namePrefix=SEARCHER&limit=2');
    expect(first.status).toBe(200);
    expect(names(first)).toEqual(['Searcher Ada', 'Searcher Ben']);
    const next = nextLink(first.headers) as string;
    expect(next).toMatch(/^\/idp\/users\/search\?namePrefix=SEARCHER&limit=2&cursor=[A-Za-z0-9_-]+$/);
    const second = await service.call<ApiUser[]>('GET', next, { token });
    expect(names(second)).toEqual(['Searcher Cy']);
    expect(second.headers.get('link')).toBeNull();
  });

  it('finds an exact email case-insensitively, and filters by status and user type', async () => {
    expect(names(await search('email=SEARCHER.BEN@search.example'))).toEqual(['Searcher Ben']);
    expect(names(await search('emailPrefix=searcher.&status=INACTIVE'))).toEqual(['Searcher Cy']);
    expect(names(await search('emailPrefix=searcher.&status=ACTIVE&userType=STANDARD'))).toEqual([
      'Searcher Ada',
      'Searcher Ben',
    ]);
    expect(names(await search('emailPrefix=searcher.&userType=RESTRICTED'))).toEqual([]);
  });

  it("finds a group's members; an unknown group is 404", async () => {
    expect(names(await search(`userGroupId=${groupId}`)).sort()).toEqual(['Searcher Ada', 'Searcher Cy']);
    expect(names(await search(`userGroupId=${groupId}&status=ACTIVE`))).toEqual(['Searcher Ada']);
    expect((await search('userGroupId=no-such-group')).status).toBe(404);
  });

  it('refuses (400) no criterion, two, an empty prefix, a bad limit and a cursor of another search', async () => {
    const cursor = new URL(
      nextLink((await search('namePrefix=searcher&limit=1')).headers) as string,
      service.baseUrl,
    ).searchParams.get('cursor');
    // Positive control: the cursor continues its own search.
    expect((await search(`namePrefix=searcher&limit=1&cursor=${cursor}`)).status).toBe(200);
    for (const [query, field] of [
      ['status=ACTIVE', undefined],
      ['email=a@b.example&namePrefix=a', 'namePrefix'],
      ['emailPrefix=', 'emailPrefix'],
      ['namePrefix=a&limit=0', 'limit'],
      ['namePrefix=a&limit=1001', 'limit'],
      [`namePrefix=other&cursor=${cursor}`, 'cursor'],
      [`emailPrefix=searcher&cursor=${cursor}`, 'cursor'],
      ['namePrefix=a&cursor=not-a-cursor', 'cursor'],
      ['namePrefix=a&page=1', 'page'],
    ] as const) {
      const response = await search(query);
      expect(response.status, query).toBe(400);
      if (field) expect(errorFields(response), query).toContain(`query.${field}`);
    }
  });

  it('needs USER.LIST (403), starting from a caller that has it', async () => {
    const orgOf = await service.callerWith(['USER.LIST']);
    expect((await search('namePrefix=a', orgOf.token)).status).toBe(200);
    const without = await service.callerWith(['PERMISSIONS.LIST'], { organization: orgOf.orgId });
    const refused = await search('namePrefix=a', without.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Missing permission: USER.LIST');
  });

  it("never shows another organization's users, groups or cursor positions", async () => {
    const other = foreign;
    const ownEmail = other.user.email;
    // Positive control: the other organization finds its own user.
    expect((await search(`email=${ownEmail}`, other.token)).body.map((user) => user.email)).toEqual([
      ownEmail,
    ]);
    expect((await search(`email=${ownEmail}`)).body).toEqual([]);
    expect(names(await search('namePrefix=searcher', other.token))).toEqual([]);
    expect((await search(`userGroupId=${groupId}`, other.token)).status).toBe(404);
    // A cursor names a position, not an organization: the other organization continues in its own users.
    const cursor = new URL(
      nextLink((await search('namePrefix=searcher&limit=1')).headers) as string,
      service.baseUrl,
    ).searchParams.get('cursor');
    const continued = await search(`namePrefix=searcher&limit=1&cursor=${cursor}`, other.token);
    expect(continued.status).toBe(200);
    expect(continued.body).toEqual([]);
  });
});
