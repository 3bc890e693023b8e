import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  LIST_RESPONSE,
  PATCH_OP,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/**
 * What Okta sends, in its order: the steps of Okta's SCIM 2.0 test specification ("Okta SCIM 2.0
 * SPEC Test"), then how Okta provisions at run time (profile updates by GET then PUT, deactivation
 * by PATCH, group push).
 */
const service = useService();
const organization = useFixture(() => service.freshOrganization());
let okta: ScimDirectory;

const random = Math.random().toString(36).slice(2, 10);
const randomUsername = `Runscope${random}@example.com`;

describe("Okta's SCIM 2.0 test specification, in order", () => {
  let existingId: string;
  let createdId: string;

  it('0. has a directory token and one fully populated user before the run', async () => {
    okta = await connectDirectory(service, organization);
    const seeded = await okta.call('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: `seed-${random}@example.com`,
      name: { givenName: 'Seed', familyName: 'User' },
      emails: [{ primary: true, value: `seed-${random}@example.com`, type: 'work' }],
      active: true,
    });
    expect(seeded.status).toBe(201);
  });

  it('1. GET /Users?count=1&startIndex=1: a ListResponse whose first user is fully populated', async () => {
    const response = await okta.call('GET', '/Users?count=1&startIndex=1', undefined, {
      'content-type': 'application/scim+json; charset=utf-8', // Okta sends it on bodiless GETs
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/scim+json');
    expect(response.body.schemas).toContain(LIST_RESPONSE);
    for (const field of ['itemsPerPage', 'startIndex', 'totalResults'])
      expect(typeof response.body[field]).toBe('number');
    const [first] = response.body.Resources;
    expect(response.body.Resources).toHaveLength(1);
    for (const value of [
      first.id,
      first.name.familyName,
      first.name.givenName,
      first.userName,
      first.emails[0].value,
    ])
      expect(value).toBeTruthy();
    expect(first.active).toBe(true);
    existingId = first.id;
  });

  it('2. GET /Users/{id}: the same user', async () => {
    const response = await okta.call('GET', `/Users/${existingId}`);
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(existingId);
    expect(response.body.name.givenName).toBeTruthy();
  });

  it('3. and 5. a filter on an unknown userName: 200 with totalResults 0', async () => {
    for (const userName of ['abcdefgh@example.com', randomUsername]) {
      const response = await okta.call(
        'GET',
        `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`,
      );
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        schemas: [LIST_RESPONSE],
        totalResults: 0,
        startIndex: 1,
        itemsPerPage: 0,
        Resources: [],
      });
    }
  });

  it('4. and 12. GET of an unknown id: 404 in the error shape, status as a string', async () => {
    for (const id of ['010101001010101011001010101011', '00919288221112222']) {
      const response = await okta.call('GET', `/Users/${id}`);
      expect(response.status).toBe(404);
      expect(response.body.schemas).toEqual([ERROR_SCHEMA]);
      expect(response.body.status).toBe('404');
      expect(response.body.detail).toBeTruthy();
    }
  });

  it('6. and 7. POST /Users: 201 with the user as sent, then readable', async () => {
    const response = await okta.call('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: randomUsername,
      name: { givenName: 'Given', familyName: 'Family' },
      emails: [{ primary: true, value: randomUsername, type: 'work' }],
      displayName: 'Given Family',
      locale: 'en-US',
      externalId: `00u${random}`,
      groups: [],
      password: 'Never-Kept-1',
      active: true,
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      schemas: [USER_SCHEMA],
      userName: randomUsername,
      name: { givenName: 'Given', familyName: 'Family' },
      active: true,
      externalId: `00u${random}`,
    });
    expect(JSON.stringify(response.body)).not.toContain('Never-Kept-1');
    createdId = response.body.id;
    expect(response.headers.get('location')).toBe(response.body.meta.location);
    const read = await okta.call('GET', `/Users/${createdId}`);
    expect(read.body).toMatchObject({
      userName: randomUsername,
      name: { givenName: 'Given', familyName: 'Family' },
    });
  });

  it('8. the same POST again: 409 uniqueness', async () => {
    const again = await okta.call('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: randomUsername,
      name: { givenName: 'Given', familyName: 'Family' },
      emails: [{ primary: true, value: randomUsername, type: 'work' }],
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '409', scimType: 'uniqueness' });
  });

  it('9. a filter on the userName in capitals finds the user (userName is not case-exact)', async () => {
    const response = await okta.call(
      'GET',
      `/Users?filter=${encodeURIComponent(`userName eq "${randomUsername.toUpperCase()}"`)}&startIndex=1&count=100`,
    );
    expect(response.status).toBe(200);
    expect(response.body.totalResults).toBe(1);
    expect(response.body.Resources[0].id).toBe(createdId);
  });

  it('10. GET /Groups: a ListResponse', async () => {
    const response = await okta.call('GET', '/Groups');
    expect(response.status).toBe(200);
    expect(response.body.schemas).toEqual([LIST_RESPONSE]);
    expect(Array.isArray(response.body.Resources)).toBe(true);
  });

  it('11. a request with a wrong Authorization: 401 in the error shape', async () => {
    const response = await service.call<Record<string, unknown>>(
      'GET',
      `/scim/v2/Users?filter=${encodeURIComponent('userName eq "x@example.com"')}`,
      {
        headers: { authorization: 'non-token' },
      },
    );
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '401' });
    expect(response.body.detail).toBeTruthy();
  });

  it('at run time: updates a profile by GET then PUT, deactivates and reactivates by PATCH', async () => {
    const current = (await okta.call('GET', `/Users/${createdId}`)).body;
    const put = await okta.call('PUT', `/Users/${createdId}`, {
      ...current,
      name: { givenName: 'Renamed', familyName: 'Family' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id: createdId,
      displayName: 'Renamed Family',
      name: { givenName: 'Renamed' },
    });

    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] };
    const deactivated = await okta.call('PATCH', `/Users/${createdId}`, deactivate);
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    // Still visible through SCIM, as INACTIVE: Okta deactivates, it never deletes.
    expect((await okta.call('GET', `/Users/${createdId}`)).body.active).toBe(false);
    const reactivated = await okta.call('PATCH', `/Users/${createdId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(reactivated.body.active).toBe(true);
  });

  it('at run time: pushes a group, renames it, adds and removes members, deletes it', async () => {
    const created = await okta.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: `Okta ${random}`,
      members: [],
    });
    expect(created.status).toBe(201);
    const groupId = created.body.id;
    expect(created.body).toMatchObject({ displayName: `Okta ${random}`, members: [] });

    const patch = (Operations: unknown[]) =>
      okta.call('PATCH', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations });
    expect(
      (await patch([{ op: 'replace', value: { id: groupId, displayName: `Okta ${random} renamed` } }]))
        .status,
    ).toBe(204);
    expect(
      (
        await patch([
          {
            op: 'add',
            path: 'members',
            value: [{ value: createdId, display: randomUsername }, { value: existingId }],
          },
        ])
      ).status,
    ).toBe(204);
    let read = await okta.call('GET', `/Groups/${groupId}`);
    expect(read.body.displayName).toBe(`Okta ${random} renamed`);
    expect(read.body.members.map((member: { value: string }) => member.value).sort()).toEqual(
      [createdId, existingId].sort(),
    );
    expect((await okta.call('GET', `/Users/${createdId}`)).body.groups).toEqual([
      { value: groupId, $ref: expect.stringContaining(`/scim/v2/Groups/${groupId}`) },
    ]);

    expect((await patch([{ op: 'remove', path: `members[value eq "${createdId}"]` }])).status).toBe(204);
    read = await okta.call('GET', `/Groups/${groupId}`);
    expect(read.body.members.map((member: { value: string }) => member.value)).toEqual([existingId]);

    expect((await okta.call('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await okta.call('GET', `/Groups/${groupId}`)).status).toBe(404);
  });
});
