import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  type ScimBody,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * `POST /.search` on Users and Groups (RFC 7644 section 3.4.3): the listing's parameters in a
 * SearchRequest body, answered exactly as the GET with the same parameters.
 */
const service = useService();
const mine = useFixture(() => service.freshOrganization());
const theirs = useFixture(() => service.freshOrganization());

const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
const suffix = Math.random().toString(36).slice(2, 10);

const search = (directory: ScimDirectory, type: 'Users' | 'Groups', body: ScimBody) =>
  directory.call('POST', `/${type}/.search`, { schemas: [SEARCH_REQUEST], ...body });

/** The same listing asked for with a GET. */
const listing = (directory: ScimDirectory, type: 'Users' | 'Groups', parameters: Record<string, string>) =>
  directory.call('GET', `/${type}?${new URLSearchParams(parameters)}`);

describe('SCIM search by POST', () => {
  it('answers what the GET with the same parameters answers: filters, paging, members left out', async () => {
    const directory = await connectDirectory(service, mine);
    const userNames = ['a', 'b', 'c'].map((label) => `search-${label}-${suffix}@search.example`);
    const users = [];
    for (const userName of userNames)
      users.push((await directory.call('POST', '/Users', { schemas: [USER_SCHEMA], userName })).body);
    const displayName = `Searched ${suffix}`;
    const group = await directory.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName,
      members: users.map((user) => ({ value: user.id })),
    });
    expect(group.status).toBe(201);

    const byUserName = `userName eq "${userNames[1]}"`;
    const found = await search(directory, 'Users', { filter: byUserName });
    expect(found.status).toBe(200);
    expect(found.headers.get('content-type')).toContain('application/scim+json');
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ id: users[1]?.id }] });
    expect(found.body).toEqual((await listing(directory, 'Users', { filter: byUserName })).body);

    const paged = await search(directory, 'Users', { startIndex: 2, count: 1 });
    expect(paged.body).toMatchObject({ startIndex: 2, itemsPerPage: 1 });
    expect(paged.body).toEqual((await listing(directory, 'Users', { startIndex: '2', count: '1' })).body);

    const withoutMembers = await search(directory, 'Groups', {
      filter: `displayName eq "${displayName}"`,
      excludedAttributes: ['members'],
    });
    expect(withoutMembers.body.Resources).toHaveLength(1);
    expect(withoutMembers.body.Resources[0]).not.toHaveProperty('members');
    const withMembers = await search(directory, 'Groups', { filter: `displayName eq "${displayName}"` });
    expect(withMembers.body.Resources[0].members).toHaveLength(3);
  });

  it('refuses a body that is no SearchRequest (invalidSyntax) and a filter it cannot take (invalidFilter)', async () => {
    const directory = await connectDirectory(service, mine);
    expect((await search(directory, 'Users', { filter: 'userName eq "x@search.example"' })).status).toBe(200);
    const notASearch = await directory.call('POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      filter: 'userName eq "x@search.example"',
    });
    expect(notASearch).toMatchObject({
      status: 400,
      body: { schemas: [ERROR_SCHEMA], scimType: 'invalidSyntax' },
    });
    expect(await search(directory, 'Users', { filter: 'userName co "x"' })).toMatchObject({
      status: 400,
      body: { scimType: 'invalidFilter' },
    });
    expect(await search(directory, 'Groups', { count: 'ten' })).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue' },
    });
  });

  it("never finds another organization's users or groups", async () => {
    const directory = await connectDirectory(service, mine);
    const other = await connectDirectory(service, theirs);
    const userName = `private-${suffix}@search.example`;
    const displayName = `Private ${suffix}`;
    await directory.call('POST', '/Users', { schemas: [USER_SCHEMA], userName });
    await directory.call('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName });
    for (const [type, filter] of [
      ['Users', `userName eq "${userName}"`],
      ['Groups', `displayName eq "${displayName}"`],
    ] as const) {
      expect((await search(directory, type, { filter })).body.totalResults, type).toBe(1);
      expect((await search(other, type, { filter })).body.totalResults, type).toBe(0);
    }
    const everyone = await search(other, 'Users', {});
    expect(JSON.stringify(everyone.body)).not.toContain(userName);
  });
});
