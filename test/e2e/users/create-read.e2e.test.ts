import { describe, expect, it } from 'vitest';
import { ALL_PERMISSION_IDS } from '../../../shared/domain/permission-catalogue.js';
import { keys } from '../../../shared/store/keys.js';
import { getUser } from '../../../shared/store/user-repository.js';
import type { ApiError, ApiUser } from '../../support/service.js';
import {
  createTestOrganization,
  errorFields,
  freshUser,
  getItem,
  putTestRole,
  readOutbox,
  setDefaultRole,
  uniqueEmail,
  useFixture,
  useService,
} from '../../support/service.js';

const service = useService();

const create = (body: unknown, as = service.admin.token) =>
  service.call<ApiError>('POST', '/idp/users', { token: as, body });
const read = (id: string, as = service.admin.token) =>
  service.call<ApiUser>('GET', `/idp/users/${id}`, { token: as });

/** Another organization, and a user created there. */
const foreign = useFixture(() => service.freshOrganizationWithUser());

describe('POST /users', () => {
  it('creates a user: 204, no body, Location naming it; the user reads back in the User shape', async () => {
    const email = uniqueEmail('Ann.Smith');
    const response = await create({ email, name: '  Ann Smith  ', userType: 'STANDARD' });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const location = response.headers.get('location') as string;
    expect(location).toMatch(new RegExp(`^${service.baseUrl}/idp/users/[0-9a-f-]{36}$`));
    const id = location.split('/').pop() as string;

    const user = await service.call<ApiUser>('GET', new URL(location).pathname, {
      token: service.admin.token,
    });
    expect(user.status).toBe(200);
    // The email keeps its case; the name is trimmed.
    expect(user.body).toEqual(freshUser(id, email, 'Ann Smith', user.body.isInitial));
    const stored = await getUser(service.organizationId, id, true);
    expect(stored).toMatchObject({ status: 'ACTIVE', userType: 'STANDARD', createdBy: service.clientId });
  });

  it('stores the user type', async () => {
    const id = await service.createUser({ name: 'Restricted', userType: 'RESTRICTED' });
    expect((await getUser(service.organizationId, id, true))?.userType).toBe('RESTRICTED');
  });

  it('marks only the first user of an organization as initial', async () => {
    const organization = await createTestOrganization();
    const orgAdmin = await service.callerWith(['USER.ADD', 'USER.DETAILS'], {
      organization: organization.id,
    });
    const first = await service.createUser({ as: orgAdmin });
    const second = await service.createUser({ as: orgAdmin });
    const third = await service.createUser({ as: orgAdmin });
    expect((await read(first, orgAdmin.token)).body.isInitial).toBe(true);
    expect((await read(second, orgAdmin.token)).body.isInitial).toBe(false);
    expect((await read(third, orgAdmin.token)).body.isInitial).toBe(false);
  });

  it('refuses an email already used in the organization, in any case, with 409 and no join email', async () => {
    const email = uniqueEmail('Dup');
    await service.createUser({ email });
    const outboxBefore = readOutbox().length;
    for (const variant of [email, email.toUpperCase(), email.toLowerCase()]) {
      const response = await create({ email: variant, name: 'Again', userType: 'STANDARD' });
      expect(response.status).toBe(409);
      expect(response.body.message).toBe('A user with this email already exists in the organization');
    }
    expect(readOutbox()).toHaveLength(outboxBefore);
    const all = await service.call<ApiUser[]>('GET', '/idp/users', { token: service.admin.token });
    expect(all.body.filter((user) => user.email.toLowerCase() === email.toLowerCase())).toHaveLength(1);
  });

  it('replays a repeat with the same Idempotency-Key: same Location, one user, one join email', async () => {
    const body = { email: uniqueEmail('idem'), name: 'Once', userType: 'STANDARD' };
    const headers = { 'idempotency-key': `create-${body.email}` };
    const first = await service.call('POST', '/idp/users', { token: service.admin.token, body, headers });
    const repeat = await service.call('POST', '/idp/users', { token: service.admin.token, body, headers });
    expect([first.status, repeat.status]).toEqual([204, 204]);
    expect(repeat.headers.get('location')).toBe(first.headers.get('location'));
    const id = (first.headers.get('location') as string).split('/').pop();
    expect(readOutbox().filter((line) => line.userId === id)).toHaveLength(1);
    const all = await service.call<ApiUser[]>('GET', '/idp/users', { token: service.admin.token });
    expect(all.body.filter((user) => user.email === body.email)).toHaveLength(1);
  });

  it('allows the same email in another organization', async () => {
    const response = await create({ email: foreign.user.email, name: 'Same email', userType: 'STANDARD' });
    expect(response.status).toBe(204);
  });

  it.each([
    ['an unknown key', { foo: 1 }, 'body.foo'],
    ['a name of the wrong type', { name: 5 }, 'body.name'],
    ['a blank name', { name: '   ' }, 'body.name'],
    ['an invalid email', { email: 'not-an-email' }, 'body.email'],
    ['an unknown user type', { userType: 'ADMIN' }, 'body.userType'],
    ['a missing email', { email: undefined }, 'body.email'],
  ])('answers 400 for %s', async (_label, change, field) => {
    const body = { email: uniqueEmail(), name: 'Valid', userType: 'STANDARD', ...change };
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual([field]);
  });

  it('names the unknown key and its value', async () => {
    const response = await create({ email: uniqueEmail(), name: 'X', userType: 'STANDARD', foo: 'bar' });
    expect(response.body.errorDetails).toEqual([
      { message: 'Unrecognized key', field: 'body.foo', rejectedValue: 'bar' },
    ]);
  });

  it("gives a new user the organization's default role: a role in roles, a managed role in managedRoles", async () => {
    const organization = await createTestOrganization();
    const orgAdmin = await service.callerWith(['USER.ADD', 'USER.DETAILS'], {
      organization: organization.id,
    });
    const orgToken = orgAdmin.token;
    const withoutDefault = await service.createUser({ as: orgAdmin });
    expect((await read(withoutDefault, orgToken)).body).toMatchObject({ roles: [], managedRoles: [] });

    const role = await putTestRole(organization.id);
    await setDefaultRole(organization.id, role.id, true);
    const withRole = await service.createUser({ as: orgAdmin });
    expect((await read(withRole, orgToken)).body).toMatchObject({ roles: [role.id], managedRoles: [] });

    await setDefaultRole(organization.id, 'read-only', false);
    const withManaged = await service.createUser({ as: orgAdmin });
    expect((await read(withManaged, orgToken)).body).toMatchObject({
      roles: [],
      managedRoles: ['read-only'],
    });
    // Earlier users keep what they had.
    expect((await read(withRole, orgToken)).body.roles).toEqual([role.id]);
  });

  it('appends a join email to the outbox and stores an outbox item', async () => {
    const email = uniqueEmail('Join');
    const before = Date.now();
    const id = await service.createUser({ email, name: 'Joiner' });
    const lines = readOutbox().filter((line) => line.userId === id);
    expect(lines).toEqual([
      {
        type: 'JOIN_EMAIL',
        organizationId: service.organizationId,
        userId: id,
        to: email,
        name: 'Joiner',
        subject: expect.stringMatching(/^You are invited to /),
        text: expect.stringMatching(/\/signin\/invitation\?token=[\w-]{43}\n/),
        createdAt: expect.any(Number),
      },
    ]);
    expect(lines[0]?.createdAt).toBeGreaterThanOrEqual(before);
  });
});

describe('GET /users/{id}', () => {
  it('answers 404 for an unknown id', async () => {
    const response = await service.call<ApiError>('GET', '/idp/users/no-such-user', {
      token: service.admin.token,
    });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('User not found');
  });

  it('answers 404 for a user of another organization and shows none of its data', async () => {
    const response = await service.call<ApiError>('GET', `/idp/users/${foreign.user.id}`, {
      token: service.admin.token,
    });
    expect(response.status).toBe(404);
    expect(response.body.message).toBe('User not found');
    expect(JSON.stringify(response.body)).not.toContain(foreign.user.email);
    // The foreign organization itself still reads it.
    expect((await read(foreign.user.id, foreign.token)).body.email).toBe(foreign.user.email);
  });

  it('answers 400 for an id over 128 characters', async () => {
    const response = await service.call<ApiError>('GET', `/idp/users/${'x'.repeat(129)}`, {
      token: service.admin.token,
    });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.id']);
  });
});

describe('PUT /users/{id}/resendJoinEmail', () => {
  it('appends another join email with the current address and name', async () => {
    const email = uniqueEmail('Resend');
    const id = await service.createUser({ email, name: 'Resender' });
    const renamed = await service.call('PUT', `/idp/users/${id}`, {
      token: service.admin.token,
      body: { name: 'Renamed' },
    });
    expect(renamed.status).toBe(200);
    const response = await service.call('PUT', `/idp/users/${id}/resendJoinEmail`, {
      token: service.admin.token,
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const lines = readOutbox().filter((line) => line.userId === id);
    expect(lines.map(({ to, name, type }) => ({ to, name, type }))).toEqual([
      { to: email, name: 'Resender', type: 'JOIN_EMAIL' },
      { to: email, name: 'Renamed', type: 'JOIN_EMAIL' },
    ]);
  });

  it('answers 404 for an unknown user and for a user of another organization, sending nothing', async () => {
    const before = readOutbox().length;
    for (const id of ['no-such-user', foreign.user.id]) {
      const response = await service.call<ApiError>('PUT', `/idp/users/${id}/resendJoinEmail`, {
        token: service.admin.token,
      });
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('User not found');
    }
    expect(readOutbox()).toHaveLength(before);
  });

  it('answers 403 without USER.ADD', async () => {
    const id = await service.createUser();
    const response = await service.call<ApiError>('PUT', `/idp/users/${id}/resendJoinEmail`, {
      token: (await service.callerWith(['USER.UPDATE', 'USER.DELETE'])).token,
    });
    expect(response.status).toBe(403);
    expect(response.body.message).toBe('Missing permission: USER.ADD');
  });
});

describe('tenant isolation of creation', () => {
  it("keeps the other organization's email guard and users apart", async () => {
    expect(await getItem(keys.emailGuard(foreign.orgId, foreign.user.email))).toMatchObject({
      userId: foreign.user.id,
    });
    const ownAdmin = await service.callerWith(ALL_PERMISSION_IDS);
    const list = await service.call<ApiUser[]>('GET', '/idp/users', { token: ownAdmin.token });
    expect(list.body.map((user) => user.id)).not.toContain(foreign.user.id);
  });
});
