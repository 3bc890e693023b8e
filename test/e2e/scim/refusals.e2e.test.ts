import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../shared/audit/record.js';
import {
  connectDirectory,
  directoryWith,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  PATCH_OP,
  type ScimBody,
  type ScimDirectory,
  USER_SCHEMA,
} from '../../support/scim.js';
import { useFixture, useService } from '../../support/service.js';

/** What the SCIM server refuses, each from a request that succeeds, and what it keeps apart. */
const service = useService();
const mine = useFixture(() => service.freshOrganization());
const theirs = useFixture(() => service.freshOrganization());

const suffix = Math.random().toString(36).slice(2, 10);
const newUser = (directory: ScimDirectory, label: string) =>
  directory.call('POST', '/Users', {
    schemas: [USER_SCHEMA],
    userName: `${label}-${suffix}@refusals.example`,
  });
const userFilter = (userName: string) => `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`;

describe('SCIM authentication', () => {
  it('refuses a missing, unknown or revoked secret (401), the revoked one from its next request on', async () => {
    const directory = await connectDirectory(service, mine);
    expect((await directory.call('GET', '/Users?count=1')).status).toBe(200);

    const missing = await service.call<Record<string, unknown>>('GET', '/scim/v2/Users');
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    expect(missing.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '401' });
    const unknown = directoryWith(service, `idp_scim_${'A'.repeat(43)}`);
    expect((await unknown.call('GET', '/Users?count=1')).status).toBe(401);

    const revoked = await service.call('DELETE', `/idp/scimTokens/${directory.tokenId}`, {
      token: mine.token,
    });
    expect(revoked.status).toBe(204);
    expect((await directory.call('GET', '/Users?count=1')).status).toBe(401);
  });

  it("takes an API client's token holding SCIM.PROVISION; refuses one without it (403) and any other token (401)", async () => {
    const provisioner = await service.callerWith(['SCIM.PROVISION'], { organization: mine.orgId });
    const withToken = directoryWith(service, provisioner.token);
    const created = await newUser(withToken, 'oauth');
    expect(created.status).toBe(201);

    const lister = await service.callerWith(['USER.LIST'], { organization: mine.orgId });
    const refused = await directoryWith(service, lister.token).call('GET', '/Users?count=1');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '403' });
    const tampered = `${provisioner.token.slice(0, -4)}AAAA`;
    expect((await directoryWith(service, tampered).call('GET', '/Users?count=1')).status).toBe(401);
  });

  it("refuses a deleted API client's token (401) before asking what it may do, as the management API does", async () => {
    // Two clients without SCIM.PROVISION; only the second is deleted, before its token was used
    // (an instance remembers a principal's standing for up to 30 s: docs/behaviour.md).
    const [kept, deleted] = await Promise.all([
      service.callerWith(['USER.LIST'], { organization: mine.orgId }),
      service.callerWith(['USER.LIST'], { organization: mine.orgId }),
    ]);
    const removed = await service.call('DELETE', `/idp/clients/${deleted.principalId}`, {
      token: mine.token,
    });
    expect(removed.status).toBe(204);
    expect((await directoryWith(service, kept.token).call('GET', '/Users?count=1')).status).toBe(403);
    expect((await directoryWith(service, deleted.token).call('GET', '/Users?count=1')).status).toBe(401);
  });

  it('records a write refused for want of SCIM.PROVISION as denied, by its caller, as the management API does', async () => {
    const lister = await service.callerWith(['USER.LIST'], { organization: mine.orgId });
    const denied = async () =>
      (
        await service.call<AuditRecord[]>(
          'GET',
          `/idp/auditEvents?outcome=denied&actorId=${lister.principalId}`,
          {
            token: mine.token,
          },
        )
      ).body.map((record) => record.action);
    // Positive control: the management API's refusal of the same caller is recorded.
    const managementRefused = await service.call('POST', '/idp/users', {
      token: lister.token,
      body: { email: `refused-${suffix}@refusals.example`, name: 'Refused', userType: 'STANDARD' },
    });
    expect(managementRefused.status).toBe(403);
    await expect.poll(denied).toEqual(['user.created']);
    const refused = await newUser(directoryWith(service, lister.token), 'refused-scim');
    expect(refused.status).toBe(403);
    await expect.poll(denied).toEqual(['user.created', 'user.created']);
  });

  it("records a directory's changes with the client that made them: the token's id", async () => {
    const directory = await connectDirectory(service, mine);
    const created = await newUser(directory, 'audited');
    const records = await service.call<AuditRecord[]>(
      'GET',
      `/idp/auditEvents?targetId=${created.body.id}&action=user.created`,
      { token: mine.token },
    );
    expect(records.body.map((record) => record.actor)).toEqual([
      expect.objectContaining({ type: 'client', id: directory.tokenId }),
    ]);
  });
});

describe('SCIM request errors', () => {
  it('answers an invalid or unsupported filter with 400 invalidFilter', async () => {
    const directory = await connectDirectory(service, mine);
    expect((await directory.call('GET', userFilter('nobody@refusals.example'))).status).toBe(200);
    for (const filter of [
      'userName co "x"',
      'title eq "x"',
      'userName eq',
      'userName eq "a" or userName eq "b"',
      'members[value eq "x"]',
    ]) {
      const response = await directory.call('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(response.status, filter).toBe(400);
      expect(response.body, filter).toMatchObject({
        schemas: [ERROR_SCHEMA],
        status: '400',
        scimType: 'invalidFilter',
      });
    }
  });

  it('answers a filter value longer than any stored key with no match, not an error', async () => {
    const directory = await connectDirectory(service, mine);
    const long = 'é'.repeat(980); // within the filter's 1,000 characters, beyond a key's 1,024 bytes
    for (const [path, attribute] of [
      ['/Users', 'id'],
      ['/Users', 'userName'],
      ['/Users', 'externalId'],
      ['/Groups', 'displayName'],
    ] as const) {
      const response = await directory.call(
        'GET',
        `${path}?filter=${encodeURIComponent(`${attribute} eq "${long}"`)}`,
      );
      expect(response.status, attribute).toBe(200);
      expect(response.body.totalResults, attribute).toBe(0);
    }
  });

  it('answers a filter value that lower-casing lengthens beyond a key with no match, not an error', async () => {
    const directory = await connectDirectory(service, mine);
    const growing = 'Ⱥ'.repeat(400); // 800 bytes; lower-cased (as emails and group names are looked up) 1,200
    const ascii = 'A'.repeat(800); // the same length, lower-cased the same length
    expect(Buffer.byteLength(growing)).toBe(Buffer.byteLength(ascii));
    for (const [path, attribute] of [
      ['/Users', 'userName'],
      ['/Users', 'emails.value'],
      ['/Groups', 'displayName'],
    ] as const) {
      const filtered = (value: string) =>
        directory.call('GET', `${path}?filter=${encodeURIComponent(`${attribute} eq "${value}"`)}`);
      // Positive control: the ASCII value is looked up and names nobody.
      const control = await filtered(ascii);
      expect(control.status, attribute).toBe(200);
      expect(control.body.totalResults, attribute).toBe(0);
      const answer = await filtered(growing);
      expect(answer.status, attribute).toBe(200);
      expect(answer.body).toMatchObject({ totalResults: 0, Resources: [] });
    }
  });

  it('answers a malformed body with 400 invalidSyntax, a missing or bad value with invalidValue, another media type with 415', async () => {
    const directory = await connectDirectory(service, mine);
    const raw = (body: string, contentType = 'application/scim+json') =>
      service.call<Record<string, unknown>>('POST', '/scim/v2/Users', {
        token: directory.secret,
        rawBody: body,
        headers: { 'content-type': contentType },
      });
    expect(
      (await raw(JSON.stringify({ schemas: [USER_SCHEMA], userName: `raw-${suffix}@refusals.example` })))
        .status,
    ).toBe(201);
    expect(await raw('{"userName": ')).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await raw(JSON.stringify({ schemas: [USER_SCHEMA] }))).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue' },
    });

    expect(await raw('[]')).toMatchObject({ status: 400, body: { scimType: 'invalidSyntax' } });
    expect(await raw(JSON.stringify({ schemas: [USER_SCHEMA], userName: 'not an email' }))).toMatchObject({
      status: 400,
      body: { scimType: 'invalidValue' },
    });
    expect((await raw('userName=x', 'text/plain')).status).toBe(415);
    const patch = await directory.call('PATCH', `/Users/${(await newUser(directory, 'patched')).body.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'explode', path: 'active', value: false }],
    });
    expect(patch).toMatchObject({
      status: 400,
      body: { schemas: [ERROR_SCHEMA], scimType: 'invalidSyntax' },
    });
  });

  it('answers 404 for unknown ids, 409 uniqueness for a taken group name', async () => {
    const directory = await connectDirectory(service, mine);
    for (const path of [
      '/Users/unknown-id',
      '/Groups/unknown-id',
      '/Schemas/urn:unknown',
      '/ResourceTypes/Device',
    ]) {
      const response = await directory.call('GET', path);
      expect(response.status, path).toBe(404);
      expect(response.body.status, path).toBe('404');
    }
    // An id no resource could have names nothing either: 404, not a refusal of the request.
    for (const id of ['x'.repeat(129), 'a%23USER', '-leading', 'sp%20ace']) {
      for (const [method, path] of [
        ['GET', `/Users/${id}`],
        ['PUT', `/Users/${id}`],
        ['DELETE', `/Groups/${id}`],
        ['GET', `/Schemas/${id}`],
      ] as const) {
        const body =
          method === 'PUT'
            ? { schemas: [USER_SCHEMA], userName: `put-${suffix}@refusals.example` }
            : undefined;
        const response = await directory.call(method, path, body);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body, `${method} ${path}`).toMatchObject({ schemas: [ERROR_SCHEMA], status: '404' });
      }
    }
    const group = { schemas: [GROUP_SCHEMA], displayName: `Taken ${suffix}` };
    expect((await directory.call('POST', '/Groups', group)).status).toBe(201);
    expect(
      await directory.call('POST', '/Groups', { ...group, displayName: group.displayName.toUpperCase() }),
    ).toMatchObject({
      status: 409,
      body: { scimType: 'uniqueness' },
    });
  });
});

describe('SCIM changes are whole', () => {
  it('refuses a group change naming a member it may not have (400) and keeps the group as it was, its name too', async () => {
    const directory = await connectDirectory(service, mine);
    const member = (await newUser(directory, 'kept-member')).body.id as string;
    const created = await directory.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: `Unchanged ${suffix}`,
      members: [{ value: member }],
    });
    const path = `/Groups/${created.body.id}`;
    const rename = { op: 'replace', path: 'displayName', value: `Renamed ${suffix}` };
    // Positive control: the rename alone is applied (and put back).
    expect((await directory.call('PATCH', path, { schemas: [PATCH_OP], Operations: [rename] })).status).toBe(
      204,
    );
    expect((await directory.call('GET', path)).body.displayName).toBe(`Renamed ${suffix}`);
    const back = { ...rename, value: `Unchanged ${suffix}` };
    expect((await directory.call('PATCH', path, { schemas: [PATCH_OP], Operations: [back] })).status).toBe(
      204,
    );

    const unknownMember = { op: 'add', path: 'members', value: [{ value: 'no-such-user' }] };
    const patched = await directory.call('PATCH', path, {
      schemas: [PATCH_OP],
      Operations: [rename, unknownMember],
    });
    expect(patched).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    const replaced = await directory.call('PUT', path, {
      schemas: [GROUP_SCHEMA],
      displayName: `Renamed ${suffix}`,
      members: [{ value: 'no-such-user' }],
    });
    expect(replaced).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    expect((await directory.call('GET', path)).body).toMatchObject({
      displayName: `Unchanged ${suffix}`,
      members: [{ value: member }],
    });
  });

  it('refuses a group whose members one answer could not name (400 tooMany), before looking at them', async () => {
    const directory = await connectDirectory(service, mine);
    const member = (await newUser(directory, 'one-of-many')).body.id as string;
    const body = (members: string[]) => ({
      schemas: [GROUP_SCHEMA],
      displayName: `Many ${suffix}`,
      members: members.map((value) => ({ value })),
    });
    const created = await directory.call('POST', '/Groups', body([member]));
    expect(created.status).toBe(201);
    // 20,001 members: more than the 20,000 an answer names (the ids need not even exist).
    const many = [member, ...Array.from({ length: 20_000 }, (_, index) => `u-${index}`)];
    const path = `/Groups/${created.body.id}`;
    expect(await directory.call('PUT', path, body(many))).toMatchObject({
      status: 400,
      body: { scimType: 'tooMany' },
    });
    expect(
      await directory.call('POST', '/Groups', { ...body(many), displayName: `Many more ${suffix}` }),
    ).toMatchObject({ status: 400, body: { scimType: 'tooMany' } });
    expect((await directory.call('GET', path)).body).toMatchObject({ members: [{ value: member }] });
  });

  it('takes a deleted user out of every group: no Group lists a member SCIM answers 404 for', async () => {
    const directory = await connectDirectory(service, mine);
    const [leaving, staying] = await Promise.all([
      newUser(directory, 'leaving'),
      newUser(directory, 'staying'),
    ]);
    const members = [{ value: leaving.body.id }, { value: staying.body.id }];
    const groups = await Promise.all(
      ['One', 'Two'].map((name) =>
        directory.call('POST', '/Groups', {
          schemas: [GROUP_SCHEMA],
          displayName: `${name} ${suffix}`,
          members,
        }),
      ),
    );
    const memberIdsOf = async (group: { body: ScimBody }) =>
      ((await directory.call('GET', `/Groups/${group.body.id}`)).body.members as { value: string }[]).map(
        (member) => member.value,
      );
    // Positive control: both groups list both users.
    for (const group of groups)
      expect((await memberIdsOf(group)).sort()).toEqual(members.map((m) => m.value).sort());

    expect((await directory.call('DELETE', `/Users/${leaving.body.id}`)).status).toBe(204);
    expect((await directory.call('GET', `/Users/${leaving.body.id}`)).status).toBe(404);
    for (const group of groups) expect(await memberIdsOf(group)).toEqual([staying.body.id]);
    // Nor may the management API put it back: the directory deleted it (409); the same request
    // for a user the directory sees is taken.
    const [first] = groups;
    const join = (userId: string) =>
      service.call('PUT', `/idp/users/${userId}/userGroups/${first?.body.id}`, { token: mine.token });
    expect((await join(leaving.body.id)).status).toBe(409);
    const later = await newUser(directory, 'joins-later');
    expect((await join(later.body.id)).status).toBe(200);
    expect((await memberIdsOf(first as { body: ScimBody })).sort()).toEqual(
      [staying.body.id, later.body.id].sort(),
    );
  });

  it('keeps the status when a PATCH removes active, as a PUT without it does', async () => {
    const directory = await connectDirectory(service, mine);
    const path = `/Users/${(await newUser(directory, 'stays-inactive')).body.id}`;
    const patch = (operation: Record<string, unknown>) =>
      directory.call('PATCH', path, { schemas: [PATCH_OP], Operations: [operation] });
    expect((await patch({ op: 'replace', path: 'active', value: false })).body.active).toBe(false);
    const removed = await patch({ op: 'remove', path: 'active' });
    expect(removed.status).toBe(200);
    expect(removed.body.active).toBe(false);
    expect((await directory.call('GET', path)).body.active).toBe(false);
  });
});

describe('SCIM keeps organizations apart', () => {
  it("never reads, changes or lists another organization's users and groups", async () => {
    const ours = await connectDirectory(service, mine);
    const other = await connectDirectory(service, theirs);
    const user = await newUser(ours, 'isolated');
    const group = await ours.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: `Isolated ${suffix}`,
    });
    // Positive controls: the owner reads both.
    expect((await ours.call('GET', `/Users/${user.body.id}`)).status).toBe(200);
    expect((await ours.call('GET', `/Groups/${group.body.id}`)).status).toBe(200);

    const patchBody = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
    for (const [method, path, body] of [
      ['GET', `/Users/${user.body.id}`],
      ['PUT', `/Users/${user.body.id}`, { schemas: [USER_SCHEMA], userName: user.body.userName }],
      ['PATCH', `/Users/${user.body.id}`, patchBody],
      ['DELETE', `/Users/${user.body.id}`],
      ['GET', `/Groups/${group.body.id}`],
      ['PUT', `/Groups/${group.body.id}`, { schemas: [GROUP_SCHEMA], displayName: 'Taken over' }],
      [
        'PATCH',
        `/Groups/${group.body.id}`,
        { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] },
      ],
      ['DELETE', `/Groups/${group.body.id}`],
    ] as const) {
      expect((await other.call(method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await other.call('GET', userFilter(user.body.userName))).body.totalResults).toBe(0);
    const filters = [`id eq "${user.body.id}"`, `externalId eq "x"`];
    for (const filter of filters)
      expect((await other.call('GET', `/Users?filter=${encodeURIComponent(filter)}`)).body.totalResults).toBe(
        0,
      );
    expect(
      (await other.call('GET', `/Groups?filter=${encodeURIComponent(`displayName eq "Isolated ${suffix}"`)}`))
        .body.totalResults,
    ).toBe(0);
    const listed = await other.call('GET', '/Users?count=200');
    expect(listed.body.Resources.map((resource: { id: string }) => resource.id)).not.toContain(user.body.id);
    // Their group cannot take our user as a member.
    const theirGroup = await other.call('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: `Theirs ${suffix}`,
      members: [{ value: user.body.id }],
    });
    expect(theirGroup).toMatchObject({ status: 400, body: { scimType: 'invalidValue' } });
    // Unchanged for the owner.
    expect((await ours.call('GET', `/Users/${user.body.id}`)).body.active).toBe(true);
    expect((await ours.call('GET', `/Groups/${group.body.id}`)).body.displayName).toBe(`Isolated ${suffix}`);
  });
});

describe('SCIM and the rate limit', () => {
  it("counts toward the organization's limit: a 429 in SCIM's shape carries Retry-After", async () => {
    const limited = await service.freshOrganization({ rateLimit: { rate: 1, burst: 1 } });
    const directory = await connectDirectory(service, limited);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => directory.call('GET', '/ServiceProviderConfig')),
    );
    expect(answers.map((answer) => answer.status)).toContain(200);
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(refused?.body).toMatchObject({ schemas: [ERROR_SCHEMA], status: '429' });
  });

  it('counts a request refused for want of SCIM.PROVISION too: each refusal writes its record', async () => {
    const limited = await service.freshOrganization({ rateLimit: { rate: 1, burst: 1 } });
    const lister = await service.callerWith(['USER.LIST'], { organization: limited.orgId });
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => directoryWith(service, lister.token).call('GET', '/Users?count=1')),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses).toContain(403);
    expect(statuses).toContain(429);
  });
});
