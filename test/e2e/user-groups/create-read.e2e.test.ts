import { describe, expect, it } from 'vitest';
import type { ApiError, ApiUserGroup, ApiUserGroupEnvelope } from '../../support/service.js';
import {
  errorFields,
  freshGroupFields,
  groupPath,
  groupsApi,
  useFixture,
  useService,
} from '../../support/service.js';

/** POST /userGroups, GET /userGroups/{id}, /list and /count. */
const service = useService();
const groups = groupsApi(service, service.admin);
/** A group of another organization, created by that organization's administrator. */
const foreign = useFixture(() => service.freshOrganization());
const foreignGroups = groupsApi(service, foreign);
const foreignGroup = useFixture(() => foreignGroups.newGroup({ name: 'Their group', number: 'F-1' }));

const create = (body: unknown, token = service.admin.token) => groupsApi(service, { token }).create(body);

describe('POST /userGroups', () => {
  it('creates a group: 201, the exact body, a Location header that GET answers', async () => {
    const before = Date.now();
    const response = await create({
      name: '  Finance  ',
      number: ' 100 ',
      description: 'The finance team',
      status: 'INACTIVE',
    });
    const after = Date.now();
    expect(response.status).toBe(201);
    const group = response.body.userGroup;
    expect(group).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      createdAt: group.createdAt,
      updatedAt: group.createdAt,
      ...freshGroupFields(service.admin.principalId, {
        name: 'Finance',
        number: '100',
        description: 'The finance team',
        status: 'INACTIVE',
      }),
    });
    expect(service.admin.principalId).toBe(service.clientId);
    expect(group.createdAt).toBeGreaterThanOrEqual(before);
    expect(group.createdAt).toBeLessThanOrEqual(after);

    const location = response.headers.get('location') as string;
    expect(location).toBe(`${service.baseUrl}/idp/userGroups/${group.id}`);
    const read = await service.call('GET', new URL(location).pathname, { token: service.admin.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ userGroup: group });
  });

  it('defaults: only a name gives an ACTIVE group without number and description', async () => {
    const response = await create({ name: 'Just a name' });
    expect(response.status).toBe(201);
    const group = response.body.userGroup;
    expect(group).toEqual({
      id: group.id,
      createdAt: group.createdAt,
      updatedAt: group.createdAt,
      ...freshGroupFields(service.admin.principalId, { name: 'Just a name' }),
    });
    expect(Object.keys(group)).not.toContain('number');
    expect(Object.keys(group)).not.toContain('description');
  });

  it('refuses a name already taken, in any case, with 409; the first group is unchanged', async () => {
    const first = await groups.newGroup({ name: 'Sales Team' });
    for (const name of ['Sales Team', 'sales team', 'SALES TEAM', '  sAlEs TeAm ']) {
      const response = await create({ name, description: 'another' });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user group with this name already exists');
    }
    expect((await groups.get(first.id)).body).toEqual({ userGroup: first });
  });

  it('refuses a number already taken with 409; groups without number may be many', async () => {
    await groups.newGroup({ name: 'Numbered one', number: 'N-7' });
    const response = await create({ name: 'Numbered two', number: 'N-7' });
    expect(response.status).toBe(409);
    expect(response.body.message).toBe('A user group with this number already exists');
    // The refused group took neither its name nor anything else.
    expect((await create({ name: 'Numbered two', number: 'N-8' })).status).toBe(201);
    const a = await create({ name: 'No number A' });
    const b = await create({ name: 'No number B' });
    expect([a.status, b.status]).toEqual([201, 201]);
  });

  it('replays a repeat with the same Idempotency-Key; another body with that key is 422', async () => {
    const count = await groups.count();
    const headers = { 'idempotency-key': 'create-group-once' };
    const send = (body: unknown) =>
      service.call<ApiUserGroupEnvelope & ApiError>('POST', '/idp/userGroups', {
        token: service.admin.token,
        body,
        headers,
      });
    const first = await send({ name: 'Once only' });
    const repeat = await send({ name: 'Once only' });
    expect([first.status, repeat.status]).toEqual([201, 201]);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    expect(await groups.count()).toBe(count + 1);
    const other = await send({ name: 'Something else' });
    expect(other.status).toBe(422);
    expect(await groups.count()).toBe(count + 1);
  });

  it.each([
    ['an unknown key', { name: 'x', foo: 1 }, 'body.foo'],
    ['a missing name', { description: 'no name' }, 'body.name'],
    ['a name of the wrong type', { name: 5 }, 'body.name'],
    ['an empty name', { name: '   ' }, 'body.name'],
    ['a number of the wrong type', { name: 'x', number: 7 }, 'body.number'],
    ['a description of the wrong type', { name: 'x', description: ['a'] }, 'body.description'],
    ['an unknown status', { name: 'x', status: 'PAUSED' }, 'body.status'],
  ])('answers 400 for %s and creates nothing', async (_label, body, field) => {
    const count = await groups.count();
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Invalid body');
    expect(errorFields(response)).toEqual([field]);
    expect(await groups.count()).toBe(count);
  });

  it('names the rejected value of an unknown key', async () => {
    const response = await create({ name: 'x', foo: 1 });
    expect((response.body as ApiError).errorDetails).toEqual([
      { message: 'Unrecognized key', field: 'body.foo', rejectedValue: 1 },
    ]);
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await service.call<ApiError>('POST', '/idp/userGroups', {
      token: service.admin.token,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
  });
});

describe('GET /userGroups/{id}', () => {
  it('answers 404 for an unknown id and for a group of another organization, never its data', async () => {
    for (const id of ['no-such-group', foreignGroup.id]) {
      const response = await groups.get(id);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User group not found');
      expect(JSON.stringify(response.body)).not.toContain('Their group');
    }
    // It exists for its own organization.
    expect((await foreignGroups.get(foreignGroup.id)).body).toEqual({
      userGroup: foreignGroup,
    });
  });

  it('answers 400 for an id that is not an identifier', async () => {
    const response = await service.call<ApiError>('GET', groupPath('bad%20id'), {
      token: service.admin.token,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.id']);
  });
});

describe('list and count', () => {
  const org = useFixture(() => service.freshOrganization());
  const orgGroups = groupsApi(service, org);
  const created: ApiUserGroup[] = [];

  it('an organization without groups: empty list without Link, count 0', async () => {
    const response = await service.call('GET', '/idp/userGroups/list', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ userGroups: [] });
    expect(response.headers.get('link')).toBeNull();
    const count = await service.call('GET', '/idp/userGroups/count', { token: org.token });
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 0 });
  });

  it('lists in creation order and counts exactly the organization’s groups', async () => {
    for (let index = 0; index < 7; index++) {
      created.push(await orgGroups.newGroup({ name: `Group ${String.fromCharCode(90 - index)}` }));
    }
    const response = await service.call('GET', '/idp/userGroups/list', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ userGroups: created });
    expect(response.headers.get('link')).toBeNull();
    expect(await orgGroups.count()).toBe(7);
    // Another organization's groups are neither listed nor counted.
    const foreignList = await foreignGroups.listAll();
    expect(foreignList.groups).toEqual([foreignGroup]);
    expect(await foreignGroups.count()).toBe(1);
  });

  it('pages with page and pageSize, with Link rel="next" while more exist', async () => {
    const page = (query: string) =>
      service.call<{ userGroups: ApiUserGroup[] }>('GET', `/idp/userGroups/list?${query}`, {
        token: org.token,
      });
    const first = await page('pageSize=3');
    expect(first.body.userGroups).toEqual(created.slice(0, 3));
    expect(first.headers.get('link')).toBe(
      `<${service.baseUrl}/idp/userGroups/list?page=1&pageSize=3&after=3>; rel="next"`,
    );
    const second = await page('page=1&pageSize=3');
    expect(second.body.userGroups).toEqual(created.slice(3, 6));
    expect(second.headers.get('link')).toBe(
      `<${service.baseUrl}/idp/userGroups/list?page=2&pageSize=3&after=6>; rel="next"`,
    );
    const last = await page('page=2&pageSize=3');
    expect(last.body.userGroups).toEqual(created.slice(6));
    expect(last.headers.get('link')).toBeNull();
    const beyond = await page('page=5&pageSize=3');
    expect(beyond.body.userGroups).toEqual([]);
    expect(beyond.headers.get('link')).toBeNull();
    // Exactly full last page: no Link.
    const exact = await page('page=0&pageSize=7');
    expect(exact.body.userGroups).toEqual(created);
    expect(exact.headers.get('link')).toBeNull();
  });

  it('following the Link headers visits every group once, in order', async () => {
    const walked = await orgGroups.listAll(2);
    expect(walked.groups).toEqual(created);
    expect(walked.pages).toBe(4);
  });

  it.each([
    ['pageSize=0', 'query.pageSize'],
    ['pageSize=1001', 'query.pageSize'],
    ['page=-1', 'query.page'],
    ['page=abc', 'query.page'],
    ['foo=1', 'query.foo'],
  ])('answers 400 for %s', async (query, field) => {
    const response = await service.call<ApiError>('GET', `/idp/userGroups/list?${query}`, {
      token: org.token,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });
});
