import { describe, expect, it } from 'vitest';
import {
  connectDirectory,
  GROUP_SCHEMA,
  LIST_RESPONSE,
  PATCH_OP,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';
import { emailsTo } from '../../support/sign-in-flow.js';

/**
 * The requests Microsoft Entra ID sends to provision a user and a group, in its order and with its
 * quirks (capitalised `op`, `"False"`, members removed by a value list, `$ref: null`, the
 * Microsoft group schema URN, `excludedAttributes=members`), and the same steps in the shapes it
 * sends with the `aadOptscim062020` flag.
 */
const service = useService();
const organization = useFixture(() => service.freshOrganization());
let entra: ScimDirectory;

const suffix = Math.random().toString(36).slice(2, 10);
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const filter = (expression: string) => `filter=${encodeURIComponent(expression)}`;

/**
 * Entra ID with the Tenant URL docs/scim.md gives (`…/scim/v2?aadOptscim062020`) sends the bare
 * flag on every request, writes included.
 */
const withTenantUrlFlag = (directory: ScimDirectory): ScimDirectory => ({
  ...directory,
  call: (method, path, body, headers) =>
    directory.call(method, `${path}${path.includes('?') ? '&' : '?'}aadOptscim062020`, body, headers),
});

describe('Microsoft Entra ID provisioning a user', () => {
  const userName = `Test_User_${suffix}@testuser.example`;
  let id: string;

  it('looks the user up, creates it with the enterprise extension, reads it back', async () => {
    entra = withTenantUrlFlag(await connectDirectory(service, organization));
    // Discovery, as Entra's "Test Connection" does, with the flag too.
    expect((await entra.call('GET', '/ServiceProviderConfig')).status).toBe(200);
    const lookup = await entra.call('GET', `/Users?${filter(`userName eq "${userName}"`)}`);
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
    expect(lookup.body).toMatchObject({ schemas: [LIST_RESPONSE], totalResults: 0, Resources: [] });

    const created = await entra.call('POST', '/Users', {
      schemas: [USER_SCHEMA, ENTERPRISE],
      externalId: `ext-${suffix}`,
      userName,
      active: true,
      emails: [{ primary: true, type: 'work', value: userName }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { employeeNumber: '42', department: 'Provisioning' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toContain('application/scim+json');
    id = created.body.id;
    expect(created.body).toMatchObject({
      userName,
      externalId: `ext-${suffix}`,
      active: true,
      name: { formatted: 'givenName familyName' },
      meta: { resourceType: 'User', location: expect.stringContaining(`/scim/v2/Users/${id}`) },
    });
    expect((await entra.call('GET', `/Users/${id}`)).body.id).toBe(id);
    const byExternalId = await entra.call('GET', `/Users?${filter(`externalId eq "ext-${suffix}"`)}`);
    expect(byExternalId.body.Resources.map((user: { id: string }) => user.id)).toEqual([id]);
    const byWorkEmail = await entra.call(
      'GET',
      `/Users?${filter(`emails[type eq "work"].value eq "${userName}"`)}`,
    );
    expect(byWorkEmail.body.totalResults).toBe(1);
  });

  it('replaces attributes one path at a time with capitalised ops, renames, and disables with "False"', async () => {
    const patch = (Operations: unknown[]) =>
      entra.call('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations });
    const renamed = await patch([
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      { op: 'Replace', path: 'name.formatted', value: 'givenName updatedFamilyName' },
      { op: 'Replace', path: 'externalId', value: `ext-${suffix}-2` },
    ]);
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      displayName: 'givenName updatedFamilyName',
      externalId: `ext-${suffix}-2`,
    });
    expect(
      (await entra.call('GET', `/Users?${filter(`externalId eq "ext-${suffix}"`)}`)).body.totalResults,
    ).toBe(0);

    // A change that keeps the address tells no one; a new address is told to the old one.
    const notices = () => emailsTo(service, id, 'SECURITY_NOTICE_EMAIL');
    expect(await notices()).toEqual([]);
    const newUserName = `Renamed_${suffix}@testuser.example`;
    const moved = await patch([{ op: 'Replace', path: 'userName', value: newUserName }]);
    expect(moved.body.userName).toBe(newUserName);
    expect(moved.body.emails).toEqual([{ value: newUserName, type: 'work', primary: true }]);
    expect(await notices()).toEqual([expect.objectContaining({ to: userName })]);

    const disabled = await patch([{ op: 'Replace', path: 'active', value: 'False' }]);
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    // With the aadOptscim062020 flag: a lower-case op and a JSON boolean, several attributes at once.
    const flagged = await patch([
      { op: 'replace', path: 'active', value: true },
      {
        op: 'replace',
        value: { displayName: 'Flag Shape', 'name.givenName': 'Flag', 'name.familyName': 'Shape' },
      },
    ]);
    expect(flagged.body).toMatchObject({ active: true, displayName: 'Flag Shape' });
  });

  it('deletes the user: 204, then 404 and gone from filters; provisioning the userName again brings it back', async () => {
    const userNameNow = (await entra.call('GET', `/Users/${id}`)).body.userName;
    expect((await entra.call('DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await entra.call('GET', `/Users/${id}`)).status).toBe(404);
    expect((await entra.call('DELETE', `/Users/${id}`)).status).toBe(404);
    const listed = await entra.call('GET', '/Users?count=200');
    expect(listed.body.Resources.map((user: { id: string }) => user.id)).not.toContain(id);
    expect(
      (await entra.call('GET', `/Users?${filter(`userName eq "${userNameNow}"`)}`)).body.totalResults,
    ).toBe(0);
    // The management API still has the person, INACTIVE (the service deletes users only so).
    const managed = await service.call<{ id: string }>('GET', `/idp/users/${id}`, {
      token: organization.token,
    });
    expect(managed.status).toBe(200);

    const again = await entra.call('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: userNameNow,
      active: true,
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id, active: true });
  });
});

describe('Microsoft Entra ID provisioning a group', () => {
  const displayName = `Group_${suffix}`;
  let groupId: string;
  let memberId: string;

  it('looks the group up without members, creates it (Microsoft schema URN included), reads it without members', async () => {
    memberId = (
      await entra.call('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: `member_${suffix}@testuser.example`,
      })
    ).body.id;
    const lookup = await entra.call(
      'GET',
      `/Groups?excludedAttributes=members&${filter(`displayName eq "${displayName}"`)}`,
    );
    expect(lookup.body).toMatchObject({ totalResults: 0, Resources: [] });
    const created = await entra.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: `group-ext-${suffix}`,
      displayName,
      meta: { resourceType: 'Group' },
    });
    expect(created.status).toBe(201);
    groupId = created.body.id;
    expect(created.body).toMatchObject({ displayName, externalId: `group-ext-${suffix}`, members: [] });
    const read = await entra.call('GET', `/Groups/${groupId}?excludedAttributes=members`);
    expect(read.body.displayName).toBe(displayName);
    expect(read.body).not.toHaveProperty('members');
    const found = await entra.call(
      'GET',
      `/Groups?excludedAttributes=members&${filter(`displayName eq "${displayName.toUpperCase()}"`)}`,
    );
    expect(found.body.Resources.map((group: { id: string }) => group.id)).toEqual([groupId]);
  });

  it('renames it, adds a member with $ref null, removes it by a value list, and deletes the group', async () => {
    const patch = (Operations: unknown[]) =>
      entra.call('PATCH', `/Groups/${groupId}`, { schemas: [PATCH_OP], Operations });
    expect(
      (await patch([{ op: 'Replace', path: 'displayName', value: `${displayName}_updated` }])).status,
    ).toBe(204);
    // A new external id moves its entry: the old one finds nothing.
    expect(
      (await patch([{ op: 'Replace', path: 'externalId', value: `group-ext-${suffix}-2` }])).status,
    ).toBe(204);
    const byExternalId = async (value: string) =>
      (await entra.call('GET', `/Groups?${filter(`externalId eq "${value}"`)}`)).body.totalResults;
    expect([await byExternalId(`group-ext-${suffix}`), await byExternalId(`group-ext-${suffix}-2`)]).toEqual([
      0, 1,
    ]);
    expect(
      (await patch([{ op: 'Add', path: 'members', value: [{ $ref: null, value: memberId }] }])).status,
    ).toBe(204);
    const withMember = await entra.call('GET', `/Groups/${groupId}`);
    expect(withMember.body).toMatchObject({
      displayName: `${displayName}_updated`,
      members: [{ value: memberId }],
    });

    expect(
      (await patch([{ op: 'Remove', path: 'members', value: [{ $ref: null, value: memberId }] }])).status,
    ).toBe(204);
    expect((await entra.call('GET', `/Groups/${groupId}`)).body.members).toEqual([]);
    // The flag's shape: a remove by a path filter.
    await patch([{ op: 'add', path: 'members', value: [{ value: memberId }] }]);
    expect((await patch([{ op: 'remove', path: `members[value eq "${memberId}"]` }])).status).toBe(204);
    expect((await entra.call('GET', `/Groups/${groupId}`)).body.members).toEqual([]);

    expect((await entra.call('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    expect((await entra.call('GET', `/Groups/${groupId}`)).status).toBe(404);
    expect(await byExternalId(`group-ext-${suffix}-2`)).toBe(0);
  });
});
