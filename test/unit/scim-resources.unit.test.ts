import { describe, expect, it } from 'vitest';
import { ChangedMeanwhile, Conflict } from '../../shared/domain/errors.js';
import { toApiError } from '../../shared/http/error-mapping.js';
import { ApiError } from '../../shared/http/errors.js';
import { scimErrorResponse } from '../../shared/scim/error-body.js';
import { invalidFilter, ScimError } from '../../shared/scim/errors.js';
import { directoryGroupOf, scimGroup, scimGroupBody } from '../../shared/scim/group-resource.js';
import { listResponse, scimWindow, windowOverListings } from '../../shared/scim/list-paging.js';
import { SCIM_SCHEMAS } from '../../shared/scim/schema-ids.js';
import { provisionedUserOf, scimUser, scimUserBody } from '../../shared/scim/user-resource.js';

const locate = (type: 'Users' | 'Groups', id: string) => `https://idp.example/scim/v2/${type}/${id}`;
/** A User body as a directory sends it, its core schema named (RFC 7643 section 3). */
const body = (value: Record<string, unknown>) =>
  scimUserBody.parse({ schemas: [SCIM_SCHEMAS.user], ...value });
const groupBody = (value: Record<string, unknown>) =>
  scimGroupBody.parse({ schemas: [SCIM_SCHEMAS.group], ...value });

describe("a resource body's schemas (RFC 7643 section 3)", () => {
  it('must name the core schema of the resource it is sent as', () => {
    const user = { userName: 'a@example.com' };
    const group = { displayName: 'Team' };
    // Positive controls: each with its own core schema, an extension beside it.
    expect(
      provisionedUserOf(body({ ...user, schemas: [SCIM_SCHEMAS.user, SCIM_SCHEMAS.enterpriseUser] })).email,
    ).toBe('a@example.com');
    expect(directoryGroupOf(groupBody(group), 'keep').displayName).toBe('Team');
    const refusal = { status: 400, scimType: 'invalidSyntax' };
    for (const schemas of [undefined, [], [SCIM_SCHEMAS.group], [SCIM_SCHEMAS.enterpriseUser]])
      expect(() => provisionedUserOf(scimUserBody.parse({ ...user, schemas }))).toThrow(
        expect.objectContaining(refusal),
      );
    for (const schemas of [undefined, [SCIM_SCHEMAS.user]])
      expect(() => directoryGroupOf(scimGroupBody.parse({ ...group, schemas }), 'keep')).toThrow(
        expect.objectContaining(refusal),
      );
  });
});

describe('provisionedUserOf', () => {
  it('takes userName as the email and the name from formatted, then given and family, then displayName', () => {
    expect(
      provisionedUserOf(
        body({
          userName: 'ann@example.com',
          name: { formatted: 'Ann Lee', givenName: 'A' },
          displayName: 'x',
        }),
      ),
    ).toEqual({ email: 'ann@example.com', name: 'Ann Lee', givenName: 'A', active: true });
    expect(
      provisionedUserOf(
        body({ userName: 'ann@example.com', name: { givenName: 'Ann', familyName: 'van Lee' } }),
      ).name,
    ).toBe('Ann van Lee');
    expect(provisionedUserOf(body({ userName: 'ann@example.com', displayName: 'Display' })).name).toBe(
      'Display',
    );
    expect(provisionedUserOf(body({ userName: 'ann@example.com' })).name).toBe('ann@example.com');
    // An email longer than a name may be: the name is its first 200 characters.
    const long = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(long.length).toBeGreaterThan(200);
    expect(provisionedUserOf(body({ userName: long }))).toMatchObject({
      email: long,
      name: long.slice(0, 200),
    });
  });

  it('reads active as a boolean or as "True"/"False", and keeps an externalId exactly as sent', () => {
    expect(provisionedUserOf(body({ userName: 'a@example.com', active: 'False' })).active).toBe(false);
    expect(provisionedUserOf(body({ userName: 'a@example.com', active: 'TRUE' })).active).toBe(true);
    // RFC 7643 3.1: the directory's own identifier, caseExact: `externalId eq " e1 "` must find it.
    expect(
      provisionedUserOf(body({ userName: 'a@example.com', active: false, externalId: ' e1 ' })),
    ).toMatchObject({
      active: false,
      externalId: ' e1 ',
    });
    expect(
      provisionedUserOf(body({ userName: 'a@example.com', externalId: '  ' })).externalId,
    ).toBeUndefined();
    expect(scimUserBody.safeParse({ userName: 'a@example.com', active: 'maybe' }).success).toBe(false);
  });

  it('takes the way of naming a PATCH changed', () => {
    const before = body({
      userName: 'a@example.com',
      name: { formatted: 'Old Name', givenName: 'Old', familyName: 'Name' },
      displayName: 'Old Name',
    });
    const after = body({
      userName: 'a@example.com',
      name: { formatted: 'Old Name', givenName: 'New', familyName: 'Name' },
      displayName: 'Old Name',
    });
    expect(provisionedUserOf(after, before).name).toBe('New Name');
    const renamedDisplay = body({ ...before, displayName: 'Shown' });
    expect(provisionedUserOf(renamedDisplay, before).name).toBe('Shown');
  });

  it('refuses a userName that is not an email, and a name of more than one line (400 invalidValue)', () => {
    for (const value of [
      { userName: 'not an email' },
      { userName: 'a@example.com', displayName: 'two\nlines' },
    ]) {
      expect(() => provisionedUserOf(body(value))).toThrow(ScimError);
      try {
        provisionedUserOf(body(value));
      } catch (error) {
        expect(error).toMatchObject({ status: 400, scimType: 'invalidValue' });
      }
    }
  });
});

describe('scimUser', () => {
  const user = {
    id: 'u1',
    email: 'ann@example.com',
    name: 'Ann van Lee',
    status: 'INACTIVE',
    externalId: 'ext',
    userGroups: new Set(['g2', 'g1']),
    createdAt: Date.UTC(2026, 0, 1),
    updatedAt: Date.UTC(2026, 0, 2),
  };

  it('answers the User with its one work email, groups and meta', () => {
    expect(scimUser(user, locate)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'u1',
      externalId: 'ext',
      userName: 'ann@example.com',
      name: { formatted: 'Ann van Lee', givenName: 'Ann van', familyName: 'Lee' },
      displayName: 'Ann van Lee',
      emails: [{ value: 'ann@example.com', type: 'work', primary: true }],
      active: false,
      groups: [
        { value: 'g1', $ref: locate('Groups', 'g1') },
        { value: 'g2', $ref: locate('Groups', 'g2') },
      ],
      meta: {
        resourceType: 'User',
        created: '2026-01-01T00:00:00.000Z',
        lastModified: '2026-01-02T00:00:00.000Z',
        location: locate('Users', 'u1'),
      },
    });
  });

  it('shows the name parts a directory sent while they still make up the name', () => {
    const sent = { ...user, givenName: 'Ann', familyName: 'van Lee' };
    expect(scimUser(sent, locate).name).toEqual({
      formatted: 'Ann van Lee',
      givenName: 'Ann',
      familyName: 'van Lee',
    });
    expect(scimUser({ ...sent, name: 'Renamed Elsewhere' }, locate).name).toEqual({
      formatted: 'Renamed Elsewhere',
      givenName: 'Renamed',
      familyName: 'Elsewhere',
    });
  });
});

describe('groups', () => {
  it('reads displayName, externalId and distinct members; members absent keep or clear as asked', () => {
    const parsed = groupBody({
      displayName: ' Team ',
      externalId: ' x ',
      members: [{ value: 'u1' }, { value: 'u1', display: 'dup' }],
    });
    // The name is trimmed; the directory's identifier is kept exactly as sent (caseExact).
    expect(directoryGroupOf(parsed, 'keep')).toEqual({
      displayName: 'Team',
      externalId: ' x ',
      members: ['u1'],
    });
    expect(directoryGroupOf(groupBody({ displayName: 'Team' }), 'keep')).toEqual({
      displayName: 'Team',
    });
    expect(directoryGroupOf(groupBody({ displayName: 'Team' }), 'none')).toEqual({
      displayName: 'Team',
      members: [],
    });
    expect(() => directoryGroupOf(groupBody({ displayName: '  ' }), 'keep')).toThrow(ScimError);
  });

  it('answers members only when read', () => {
    const group = { id: 'g1', name: 'Team', createdAt: 0, updatedAt: 0 };
    expect(scimGroup(group, ['u2', 'u1'], locate).members).toEqual([
      { value: 'u1', $ref: locate('Users', 'u1'), type: 'User' },
      { value: 'u2', $ref: locate('Users', 'u2'), type: 'User' },
    ]);
    expect(scimGroup(group, undefined, locate)).not.toHaveProperty('members');
  });
});

describe('list paging', () => {
  it('reads startIndex below 1 as 1, a negative count as 0, and caps count at 200', () => {
    expect(scimWindow(undefined, undefined)).toEqual({ startIndex: 1, count: 100 });
    expect(scimWindow(-5, -1)).toEqual({ startIndex: 1, count: 0 });
    expect(scimWindow(7, 5000)).toEqual({ startIndex: 7, count: 200 });
  });

  it('splits a window over listings read one after the other', () => {
    expect(windowOverListings([3, 4], 0, 2)).toEqual([
      { offset: 0, count: 2 },
      { offset: 0, count: 0 },
    ]);
    expect(windowOverListings([3, 4], 2, 3)).toEqual([
      { offset: 2, count: 1 },
      { offset: 0, count: 2 },
    ]);
    expect(windowOverListings([3, 4], 5, 10)).toEqual([
      { offset: 3, count: 0 },
      { offset: 2, count: 2 },
    ]);
    expect(windowOverListings([3, 4], 9, 10)).toEqual([
      { offset: 3, count: 0 },
      { offset: 4, count: 0 },
    ]);
  });

  it('answers a ListResponse with itemsPerPage the resources answered', () => {
    expect(listResponse([{ id: 'a' }], 5, 3)).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 5,
      startIndex: 3,
      itemsPerPage: 1,
      Resources: [{ id: 'a' }],
    });
  });
});

describe('scimErrorResponse', () => {
  const parsed = (response: ReturnType<typeof scimErrorResponse>) => JSON.parse(String(response.body));

  it("answers SCIM's error shape, status as a string, with the scimType each refusal means", () => {
    const filter = scimErrorResponse(invalidFilter('Only eq'));
    expect(filter.headers).toEqual({ 'content-type': 'application/scim+json', 'cache-control': 'no-store' });
    expect(parsed(filter)).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidFilter',
      detail: 'Only eq',
    });
    expect(parsed(scimErrorResponse(toApiError(new Conflict('User', 'Taken')))).scimType).toBe('uniqueness');
    // A request that lost a race took nothing: a 409 without uniqueness, which a directory retries.
    const raced = scimErrorResponse(
      toApiError(new ChangedMeanwhile('Item', 'The resource was changed concurrently; retry')),
    );
    expect(raced.statusCode).toBe(409);
    expect(parsed(raced)).not.toHaveProperty('scimType');
    const query = new ApiError(400, 'Invalid query', [{ field: 'query.count', message: 'Expected number' }]);
    expect(parsed(scimErrorResponse(query))).toMatchObject({
      scimType: 'invalidValue',
      detail: 'Invalid query: query.count: Expected number',
    });
    const bodyRefusal = (field: string) =>
      parsed(scimErrorResponse(new ApiError(400, 'Invalid body', [{ field, message: 'Required' }]))).scimType;
    // RFC 7644 section 3.12: a required value missing, or of the wrong type, is invalidValue.
    expect(bodyRefusal('body.userName')).toBe('invalidValue');
    expect(bodyRefusal('body.name.givenName')).toBe('invalidValue');
    // The message's own structure is its syntax.
    for (const field of ['body', 'body.schemas', 'body.schemas.0', 'body.Operations'])
      expect(bodyRefusal(field), field).toBe('invalidSyntax');
    expect(bodyRefusal('body.schemasExtra')).toBe('invalidValue');
    expect(parsed(scimErrorResponse(new ApiError(404, 'User not found')))).not.toHaveProperty('scimType');
  });

  it('says when to retry a 429 and how to authenticate after a 401; never echoes a rejected value', () => {
    expect(scimErrorResponse(new ApiError(429, 'Slow down')).headers).toMatchObject({ 'retry-after': '1' });
    expect(scimErrorResponse(new ApiError(401, 'Who?')).headers).toMatchObject({
      'www-authenticate': 'Bearer realm="scim"',
    });
    const withValue = new ApiError(400, 'Invalid body', [
      { field: 'body.password', message: 'Too long', rejectedValue: 'hunter2' },
    ]);
    expect(String(scimErrorResponse(withValue).body)).not.toContain('hunter2');
  });
});
