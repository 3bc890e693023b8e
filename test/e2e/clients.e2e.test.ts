import { decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../shared/audit/record.js';
import { signAccessToken } from '../../shared/auth/token-service.js';
import { activeUserAccess } from '../../shared/auth/user-tokens.js';
import { reloadConfig } from '../../shared/config.js';
import { consoleAddress, consoleClientId, enableConsole } from '../../shared/console/console-application.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { createApiClient, getApiClient } from '../../shared/store/api-client-repository.js';
import { isRegisteredOrigin } from '../../shared/store/browser-origins.js';
import { auditTrail } from '../support/audit.js';
import type { ApiClient, ApiClientName, ApiError, ApiResponse, ClientCaller } from '../support/service.js';
import {
  createTestOrganization,
  errorFields,
  nextLink,
  permissionsWithout,
  putTestPolicy,
  putTestRole,
  storedAuditText,
  useService,
} from '../support/service.js';
import { registerApplication } from '../support/sign-in-flow.js';

/** POST/GET /clients, GET /clients/name, rotateSecret and DELETE /clients/{id}. */
const service = useService();

/** A new organization and its only client, named 'admin' (known role id and secret, so its list entry is exact). */
const newOrganization = async () =>
  service.callerWith(ALL_PERMISSION_IDS, {
    organization: (await createTestOrganization()).id,
    name: 'admin',
  });

/** The admin client as GET /clients shows it (callerWith writes createdBy 'test'). */
const adminEntry = (org: ClientCaller) => ({
  id: org.principalId,
  clientSecret: org.clientSecret,
  name: 'admin',
  roles: [org.roleId],
  clientType: 'STANDARD',
  policies: [],
  organizationId: org.orgId,
  createdBy: 'test',
  createdDate: expect.any(Number),
  lastModifiedBy: 'test',
  lastModifiedDate: expect.any(Number),
});

const create = (token: string, body: unknown) =>
  service.call<ApiClient & ApiError>('POST', '/idp/clients', { token, body });
const list = (token: string, query = '') =>
  service.call<ApiClient[] & ApiError>('GET', `/idp/clients${query}`, { token });
const names = (token: string, query = '') =>
  service.call<ApiClientName[] & ApiError>('GET', `/idp/clients/name${query}`, { token });
const rotate = (token: string, id: string) =>
  service.call<ApiClient & ApiError>('POST', `/idp/clients/${id}/rotateSecret`, { token });
const remove = (token: string, id: string) =>
  service.call<ApiError>('DELETE', `/idp/clients/${id}`, { token });

/** Registers a client; fails the test unless the answer is 201. */
const newClient = async (token: string, body: Record<string, unknown>): Promise<ApiClient> => {
  const response = await create(token, { clientType: 'STANDARD', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
};

/** The token endpoint answers RFC 6749 errors, not the API error shape. */
const expectInvalidClient = async (clientId: string, clientSecret: string) => {
  const response = await service.requestToken(clientId, clientSecret);
  expect(response.status).toBe(401);
  expect(await response.json()).toMatchObject({ error: 'invalid_client' });
};

const expectStatus = (response: ApiResponse<ApiError>, status: number, error: string, message?: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.body).toMatchObject({ status, error, ...(message ? { message } : {}) });
};

describe('POST /clients', () => {
  it('answers 201 with the client and its secret, a Location, and credentials that obtain a token', async () => {
    const org = await newOrganization();
    const role = await putTestRole(org.orgId, { permissions: ['USER.LIST', 'ROLES.UPDATE'] });
    const before = Date.now();
    const response = await create(org.token, {
      name: '  Billing export ',
      clientType: 'STANDARD',
      roles: [role.id],
    });
    const after = Date.now();
    expect(response.status).toBe(201);
    const client = response.body;
    expect(client).toEqual({
      id: client.id,
      clientSecret: client.clientSecret,
      name: 'Billing export',
      roles: [role.id],
      clientType: 'STANDARD',
      policies: [],
      organizationId: org.orgId,
      createdBy: org.principalId,
      createdDate: client.createdDate,
      lastModifiedBy: org.principalId,
      lastModifiedDate: client.createdDate,
    });
    expect(client.clientSecret.length).toBeGreaterThanOrEqual(32);
    expect(client.createdDate).toBeGreaterThanOrEqual(before);
    expect(client.createdDate).toBeLessThanOrEqual(after);
    expect(response.headers.get('location')).toBe(`${service.baseUrl}/idp/clients/${client.id}`);

    const claims = decodeJwt(await service.token(client.id, client.clientSecret));
    expect(claims).toMatchObject({
      sub: client.id,
      org: org.orgId,
      principal_type: 'client',
      user_type: 'STANDARD',
    });
    expect([...(claims.permissions as string[])].sort()).toEqual([
      'PERMISSIONS.LIST',
      'ROLES.DETAILS',
      'ROLES.LIST',
      'ROLES.UPDATE',
      'USER.LIST',
    ]);
    expect(claims.policies).toEqual([]);
  });

  it('shows the policies of a RESTRICTED client and puts them in its token', async () => {
    const org = await newOrganization();
    const [p1, p2] = [await putTestPolicy(org.orgId), await putTestPolicy(org.orgId)];
    const client = await newClient(org.token, {
      name: 'Restricted',
      clientType: 'RESTRICTED',
      policies: [p1, p2, p1],
    });
    expect(client.clientType).toBe('RESTRICTED');
    expect(client.roles).toEqual([]);
    expect(client.policies).toEqual([p1, p2].sort());
    const claims = decodeJwt(await service.token(client.id, client.clientSecret));
    expect(claims.user_type).toBe('RESTRICTED');
    expect(claims.permissions).toEqual([]);
    expect([...(claims.policies as string[])].sort()).toEqual([p1, p2].sort());
  });

  it('refuses policies on a STANDARD client with 400 naming body.policies, and registers nothing', async () => {
    const org = await newOrganization();
    const policy = await putTestPolicy(org.orgId);
    const response = await create(org.token, { name: 'Std', clientType: 'STANDARD', policies: [policy] });
    expectStatus(response, 400, 'Bad Request', 'Only a RESTRICTED client carries policies');
    expect(response.body.errorDetails).toEqual([
      { message: 'Must be empty for a STANDARD client', field: 'body.policies', rejectedValue: [policy] },
    ]);
    expect((await names(org.token)).body).toEqual([{ id: org.principalId, name: 'admin' }]);
  });

  it('refuses unknown, archived and foreign roles and policies with 400 naming each, and registers nothing', async () => {
    const org = await newOrganization();
    const other = await createTestOrganization();
    const cases: [string, 'roles' | 'policies', string][] = [
      ['unknown role', 'roles', 'no-such-role'],
      ['archived role', 'roles', (await putTestRole(org.orgId, { archived: true })).id],
      ['foreign role', 'roles', (await putTestRole(other.id)).id],
      ['unknown policy', 'policies', 'no-such-policy'],
      ['archived policy', 'policies', await putTestPolicy(org.orgId, { archived: true })],
      ['foreign policy', 'policies', await putTestPolicy(other.id)],
    ];
    for (const [label, list, rejected] of cases) {
      const field = `body.${list}`;
      const grants = { [list]: [rejected] };
      const response = await create(org.token, { name: label, clientType: 'RESTRICTED', ...grants });
      expect(response.status, label).toBe(400);
      expect(response.body.message, label).toBe(field === 'body.roles' ? 'Unknown role' : 'Unknown policy');
      expect(response.body.errorDetails, label).toEqual([
        { message: 'Not a live one of this organization', field, rejectedValue: rejected },
      ]);
    }
    expect((await names(org.token)).body).toEqual([{ id: org.principalId, name: 'admin' }]);
  });

  it.each([
    ['a missing name', { clientType: 'STANDARD' }, 'body.name'],
    ['a blank name', { name: '   ', clientType: 'STANDARD' }, 'body.name'],
    ['a missing clientType', { name: 'x' }, 'body.clientType'],
    ['an unknown clientType', { name: 'x', clientType: 'ADMIN' }, 'body.clientType'],
    ['roles not an array', { name: 'x', clientType: 'STANDARD', roles: 'r1' }, 'body.roles'],
    ['an unknown property', { name: 'x', clientType: 'STANDARD', secret: 's' }, 'body.secret'],
  ])('answers 400 for %s', async (_label, body, field) => {
    const org = await newOrganization();
    const response = await create(org.token, body);
    expectStatus(response, 400, 'Bad Request');
    expect(errorFields(response)).toEqual([field]);
    expect((await names(org.token)).body).toHaveLength(1);
  });

  it('answers 403 without API_CLIENTS.WRITE', async () => {
    const org = await newOrganization();
    const caller = await service.callerWith(permissionsWithout('API_CLIENTS.WRITE'), {
      organization: org.orgId,
    });
    expectStatus(await create(caller.token, { name: 'x', clientType: 'STANDARD' }), 403, 'Forbidden');
    expect((await names(org.token)).body.map((entry) => entry.id)).toEqual([
      org.principalId,
      caller.principalId,
    ]);
  });
});

describe('GET /clients', () => {
  it('pages in creation order with Link rel="next" only while more exist', async () => {
    const org = await newOrganization();
    const created = [];
    for (const name of ['one', 'two', 'three']) created.push(await newClient(org.token, { name }));
    const all = [adminEntry(org), ...created];

    const full = await list(org.token);
    expect(full.status).toBe(200);
    expect(full.body).toEqual(all);
    expect(full.headers.get('link')).toBeNull();

    const first = await list(org.token, '?page=0&pageSize=2');
    expect(first.body).toEqual(all.slice(0, 2));
    expect(nextLink(first.headers)).toBe('/idp/clients?page=1&pageSize=2&after=2');
    const second = await list(org.token, nextLink(first.headers)?.replace('/idp/clients', ''));
    expect(second.body).toEqual(all.slice(2, 4));
    expect(second.headers.get('link')).toBeNull();
    const third = await list(org.token, '?page=1&pageSize=3');
    expect(third.body).toEqual(all.slice(3));
    expect(third.headers.get('link')).toBeNull();
    expect((await list(org.token, '?page=2&pageSize=2')).body).toEqual([]);
  });

  it.each([
    ['?pageSize=0', 'query.pageSize'],
    ['?pageSize=1001', 'query.pageSize'],
    ['?page=-1', 'query.page'],
    ['?page=one', 'query.page'],
  ])('answers 400 for %s', async (query, field) => {
    const org = await newOrganization();
    for (const response of [await list(org.token, query), await names(org.token, query)]) {
      expectStatus(response, 400, 'Bad Request');
      expect(errorFields(response)).toEqual([field]);
    }
  });

  it('hides archived roles and policies of a client', async () => {
    const org = await newOrganization();
    const [r1, r2] = [await putTestRole(org.orgId), await putTestRole(org.orgId)];
    const [p1, p2] = [await putTestPolicy(org.orgId), await putTestPolicy(org.orgId)];
    const client = await newClient(org.token, {
      name: 'grants',
      clientType: 'RESTRICTED',
      roles: [r1.id, r2.id],
      policies: [p1, p2],
    });
    expect((await service.call('DELETE', `/idp/roles/${r1.id}`, { token: org.token })).status).toBe(204);
    expect((await service.call('DELETE', `/idp/policies/${p2}`, { token: org.token })).status).toBe(204);
    const listed = (await list(org.token)).body.find((entry) => entry.id === client.id);
    expect(listed).toEqual({ ...client, roles: [r2.id], policies: [p1] });
  });

  it("answers 403 without API_CLIENTS.READ, and never lists another organization's clients", async () => {
    const org = await newOrganization();
    const caller = await service.callerWith(permissionsWithout('API_CLIENTS.READ'), {
      organization: org.orgId,
    });
    expectStatus(await list(caller.token), 403, 'Forbidden');

    const mainToken = await service.token();
    const mainIds = (await list(mainToken)).body.map((entry) => entry.id);
    const mainNames = (await names(mainToken)).body.map((entry) => entry.id);
    expect(mainIds).toContain(service.clientId);
    for (const id of [org.principalId, caller.principalId]) {
      expect(mainIds).not.toContain(id);
      expect(mainNames).not.toContain(id);
    }
    expect((await list(org.token)).body.map((entry) => entry.id)).toEqual([
      org.principalId,
      caller.principalId,
    ]);
  });
});

describe("client secrets in the list, which amount to the clients' access", () => {
  it('are read by no managed role but administrator: read-only is refused the list', async () => {
    const org = await newOrganization();
    const reader = await service.createUser({ as: org });
    const grant = await service.call('PUT', `/idp/users/${reader}/managedRoles/read-only`, {
      token: org.token,
    });
    expect(grant.status).toBe(204);
    const token = await service.userToken(reader, org.orgId);
    expect(decodeJwt(token).permissions).not.toContain('API_CLIENTS.READ');
    expectStatus(await list(token), 403, 'Forbidden');
    // Positive control: the administrator lists the clients, secrets included.
    expect((await list(org.token)).body.find((entry) => entry.id === org.principalId)?.clientSecret).not.toBe(
      '',
    );
  });

  it('are shown to a RESTRICTED caller only for RESTRICTED clients within its policies', async () => {
    const org = await newOrganization();
    const restricted = await service.callerWith(['API_CLIENTS.READ', 'API_CLIENTS.WRITE'], {
      organization: org.orgId,
      clientType: 'RESTRICTED',
    });
    const made = await service.call<ApiClient>('POST', '/idp/clients', {
      token: restricted.token,
      body: { name: 'Restricted reporter', clientType: 'RESTRICTED' },
    });
    expect(made.status).toBe(201);
    const listed = (await list(restricted.token)).body;
    // Positive control: the client it made (it could make it again) with its secret.
    expect(listed.find((entry) => entry.id === made.body.id)?.clientSecret).toBe(made.body.clientSecret);
    // The STANDARD administrator client's secret would take it past its type: empty.
    expect(listed.find((entry) => entry.id === org.principalId)?.clientSecret).toBe('');
  });

  it('are given only by a caller holding every permission', async () => {
    const org = await newOrganization();
    const role = await putTestRole(org.orgId, { permissions: ['API_CLIENTS.READ'] });
    const user = await service.createUser({ as: org });
    const granter = await service.callerWith(['USER_ROLES.GRANT', 'API_CLIENTS.READ', 'USER.DETAILS'], {
      organization: org.orgId,
    });
    const refused = await service.call<ApiError>('PUT', `/idp/users/${user}/roles/${role.id}/grant`, {
      token: granter.token,
    });
    expect([refused.status, refused.body.message]).toEqual([
      403,
      expect.stringMatching(/would give permissions the caller does not hold: .*AUDIT\.READ/),
    ]);
    // Positive controls: the same caller gives a role of a permission it holds; the administrator,
    // holding all, gives this one.
    const held = await putTestRole(org.orgId, { permissions: ['USER.DETAILS'] });
    const grant = (roleId: string, token: string) =>
      service.call('PUT', `/idp/users/${user}/roles/${roleId}/grant`, { token });
    expect((await grant(held.id, granter.token)).status).toBe(204);
    expect((await grant(role.id, org.token)).status).toBe(204);
  });
});

describe('GET /clients/name', () => {
  it('needs no permission and pages {id, name} entries with Link', async () => {
    const org = await newOrganization();
    const bare = await service.callerWith([], { organization: org.orgId, name: 'bare' });
    const token = bare.token;
    expect(decodeJwt(token).permissions).toEqual([]);
    const named = await newClient(org.token, { name: 'named' });
    const all = [
      { id: org.principalId, name: 'admin' },
      { id: bare.principalId, name: 'bare' },
      { id: named.id, name: 'named' },
    ];

    const full = await names(token);
    expect(full.status).toBe(200);
    expect(full.body).toEqual(all);
    expect(full.headers.get('link')).toBeNull();
    const first = await names(token, '?pageSize=2');
    expect(first.body).toEqual(all.slice(0, 2));
    expect(nextLink(first.headers)).toBe('/idp/clients/name?page=1&pageSize=2&after=2');
    const second = await service.call<unknown[]>('GET', nextLink(first.headers) as string, { token });
    expect(second.body).toEqual(all.slice(2));
    expect(second.headers.get('link')).toBeNull();
  });
});

describe('POST /clients/{id}/rotateSecret', () => {
  it('answers 200 with a new secret; old and new secrets both obtain tokens during the grace period', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'rotating' });
    const caller = await service.callerWith(['API_CLIENTS.WRITE'], { organization: org.orgId });
    const before = Date.now();
    const response = await rotate(caller.token, client.id);
    expect(response.status).toBe(200);
    const rotated = response.body;
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    expect(rotated).toEqual({
      ...client,
      clientSecret: rotated.clientSecret,
      lastModifiedBy: caller.principalId,
      lastModifiedDate: rotated.lastModifiedDate,
    });
    expect(rotated.lastModifiedDate).toBeGreaterThanOrEqual(before);
    expect(decodeJwt(await service.token(client.id, rotated.clientSecret)).sub).toBe(client.id);
    expect(decodeJwt(await service.token(client.id, client.clientSecret)).sub).toBe(client.id);
    expect((await list(org.token)).body.find((entry) => entry.id === client.id)).toEqual(rotated);
  });

  it("answers 404 for an unknown, a deleted and another organization's client", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const deleted = await newClient(org.token, { name: 'gone' });
    expect((await remove(org.token, deleted.id)).status).toBe(204);
    for (const id of ['no-such-client', deleted.id, other.principalId]) {
      expectStatus(await rotate(org.token, id), 404, 'Not Found', 'API client not found');
    }
    await service.token(other.principalId, other.clientSecret);
  });

  it('answers 403 without API_CLIENTS.WRITE and leaves the secret alone', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'kept' });
    const caller = await service.callerWith(permissionsWithout('API_CLIENTS.WRITE'), {
      organization: org.orgId,
    });
    expectStatus(await rotate(caller.token, client.id), 403, 'Forbidden');
    expect((await list(org.token)).body.find((entry) => entry.id === client.id)).toEqual(client);
  });
});

describe('DELETE /clients/{id}', () => {
  it('answers 204; the credentials stop working and the client leaves lists and name resolution', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'doomed' });
    const rotated = (await rotate(org.token, client.id)).body;
    const resolve = () =>
      service.call<{ id: string; name?: string }[]>('POST', '/idp/services/by-ids', {
        token: org.token,
        body: { ids: [client.id] },
      });
    expect((await resolve()).body).toEqual([{ id: client.id, name: 'doomed' }]);

    const response = await remove(org.token, client.id);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    await expectInvalidClient(client.id, rotated.clientSecret);
    await expectInvalidClient(client.id, client.clientSecret);
    expectStatus(await remove(org.token, client.id), 404, 'Not Found', 'API client not found');
    expect((await list(org.token)).body).toEqual([adminEntry(org)]);
    expect((await names(org.token)).body).toEqual([{ id: org.principalId, name: 'admin' }]);
    const resolved = await resolve();
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual([{ id: client.id }]);
  });

  it('leaves no gap in the pages where a deleted client was', async () => {
    const org = await newOrganization();
    const created = [];
    for (const name of ['a', 'b', 'c', 'd']) created.push(await newClient(org.token, { name }));
    for (const gone of [created[1], created[2]])
      expect((await remove(org.token, gone?.id as string)).status).toBe(204);
    const pages = [];
    for (const page of [0, 1, 2]) pages.push(await names(org.token, `?page=${page}&pageSize=1`));
    expect(pages.map((page) => page.body.map((entry) => entry.id))).toEqual([
      [org.principalId],
      [created[0]?.id],
      [created[3]?.id],
    ]);
    expect(pages.map((page) => nextLink(page.headers))).toEqual([
      '/idp/clients/name?page=1&pageSize=1&after=1',
      '/idp/clients/name?page=2&pageSize=1&after=2',
      undefined,
    ]);
  });

  it("answers 404 for an unknown or another organization's client, which keeps working", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    for (const id of ['no-such-client', other.principalId]) {
      expectStatus(await remove(org.token, id), 404, 'Not Found', 'API client not found');
    }
    expect((await list(await service.token(other.principalId, other.clientSecret))).status).toBe(200);
  });

  it('answers 403 without API_CLIENTS.WRITE and deletes nothing', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'kept' });
    const caller = await service.callerWith(permissionsWithout('API_CLIENTS.WRITE'), {
      organization: org.orgId,
    });
    expectStatus(await remove(caller.token, client.id), 403, 'Forbidden');
    expect(decodeJwt(await service.token(client.id, client.clientSecret)).sub).toBe(client.id);
  });

  /**
   * Runs `work` with the principal-status cache at 1 s on a faked Date. The service runs in this
   * process: it reads the changed setting again, and its clock is the test's (only Date is faked;
   * I/O keeps its timers).
   */
  const withOneSecondPrincipalCache = async (work: () => Promise<void>) => {
    const previous = process.env.IDP_PRINCIPAL_CACHE_SECONDS;
    process.env.IDP_PRINCIPAL_CACHE_SECONDS = '1';
    reloadConfig();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      await work();
    } finally {
      vi.useRealTimers();
      if (previous === undefined) delete process.env.IDP_PRINCIPAL_CACHE_SECONDS;
      else process.env.IDP_PRINCIPAL_CACHE_SECONDS = previous;
      reloadConfig();
    }
  };

  it('refuses (401) a token issued before the deletion once the principal-status cache expires', () =>
    withOneSecondPrincipalCache(async () => {
      const org = await newOrganization();
      const client = await newClient(org.token, { name: 'holder', roles: [org.roleId] });
      const held = await service.token(client.id, client.clientSecret);
      expect((await names(held)).status).toBe(200);
      expect((await remove(org.token, client.id)).status).toBe(204);
      // Within the cache's second the remembered status still admits the token.
      expect((await names(held)).status).toBe(200);
      vi.advanceTimersByTime(1000);
      for (const response of [
        await names(held),
        await list(held),
        await create(held, { name: 'x', clientType: 'STANDARD' }),
      ]) {
        expectStatus(response, 401, 'Unauthorized', 'The principal of this token is no longer active');
      }
      expect((await names(org.token)).body.map((entry) => entry.name)).toEqual(['admin']);
    }));

  it("refuses (401) a person's token issued through an application deleted since, as introspection does", () =>
    withOneSecondPrincipalCache(async () => {
      const userId = await service.createUser();
      const application = await registerApplication(service, {
        flowType: 'authorization_code',
        redirectUris: ['https://app.example.org/callback'],
      });
      expect(application.status).toBe(201);
      const access = await activeUserAccess(service.organizationId, userId);
      if (!access) throw new Error('The person cannot be issued a token');
      const { accessToken } = await signAccessToken(access.subject, 'openid profile', Date.now(), {
        clientId: application.body.id,
        lifetimeSeconds: 900,
        authTime: Date.now(),
      });
      const mine = () => service.call<ApiError>('GET', '/idp/me/ui-permissions', { token: accessToken });
      // Positive control: the person's token acts until the application goes.
      expect((await mine()).status).toBe(200);
      expect((await remove(service.admin.token, application.body.id)).status).toBe(204);
      vi.advanceTimersByTime(1000);
      const refused = await mine();
      expectStatus(
        refused,
        401,
        'Unauthorized',
        'The principal of this token, or the application it was issued to, is no longer active',
      );
      // RFC 6750 3: the challenge says the token was refused, and why.
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", error_description="The principal of this token, or the application it was issued to, is no longer active"',
      );
    }));
});

describe('audit records of API clients', () => {
  it('records registration, rotation and deletion once each, naming the client, and never a secret', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'audited' });
    const rotated = await rotate(org.token, client.id);
    expect(rotated.status).toBe(200);
    expect((await remove(org.token, client.id)).status).toBe(204);

    const records = await service.call<AuditRecord[]>('GET', `/idp/auditEvents?targetId=${client.id}`, {
      token: org.token,
    });
    expect(records.body.map((record) => record.action)).toEqual([
      'client.deleted',
      'client.secret.rotated',
      'client.created',
    ]);
    for (const record of records.body) {
      expect(record).toMatchObject({
        outcome: 'success',
        actor: { type: 'client', id: org.principalId },
        targets: [{ type: 'client', id: client.id, name: 'audited' }],
      });
    }
    const [deletion, rotation, creation] = records.body as [AuditRecord, AuditRecord, AuditRecord];
    expect(creation.changes).toMatchObject({
      name: { from: null, to: 'audited' },
      clientType: { from: null, to: 'STANDARD' },
      roles: { from: null, to: [] },
      clientSecret: 'changed',
    });
    expect(rotation.changes).toEqual({ clientSecret: 'changed' });
    expect(deletion.changes).toEqual({ deleted: { from: false, to: true } });

    // Neither secret the answers showed is in any stored audit item, under any name.
    const stored = await storedAuditText(org.orgId);
    expect(stored).toContain(client.id);
    for (const secret of [client.clientSecret, rotated.body.clientSecret]) {
      expect(secret.length).toBeGreaterThanOrEqual(32);
      expect(stored).not.toContain(secret);
    }
  });
});

describe('PATCH /clients/{id}', () => {
  const change = (token: string, id: string, body: unknown) =>
    service.call<Record<string, unknown> & ApiError>('PATCH', `/idp/clients/${id}`, { token, body });
  const details = async (token: string, id: string) =>
    (await service.call<Record<string, unknown>>('GET', `/idp/clients/${id}`, { token })).body;
  const preflightFrom = (origin: string) =>
    fetch(`${service.baseUrl}/oauth2/token`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
  const authorizeTo = (clientId: string, redirectUri: string) =>
    fetch(
      `${service.baseUrl}/oauth2/authorize?${new URLSearchParams({
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { redirect: 'manual' },
    );

  it("changes an application's name, redirect URIs and ID token algorithm, keeps the rest, and records it", async () => {
    const org = await newOrganization();
    const app = await newClient(org.token, {
      name: 'before',
      flowType: 'authorization_code',
      redirectUris: ['https://old.example/cb'],
      postLogoutRedirectUris: ['https://old.example/bye'],
    });
    expect((await preflightFrom('https://old.example')).status).toBe(204);
    const changed = await change(org.token, app.id, {
      name: 'after',
      redirectUris: ['https://new.example/cb'],
      idTokenSignedResponseAlg: 'ES256',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      id: app.id,
      name: 'after',
      flowType: 'authorization_code',
      redirectUris: ['https://new.example/cb'],
      postLogoutRedirectUris: ['https://old.example/bye'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      idTokenSignedResponseAlg: 'ES256',
      roles: app.roles,
      lastModifiedBy: org.principalId,
    });
    expect(changed.body).not.toHaveProperty('clientSecret');
    expect(await details(org.token, app.id)).toEqual(changed.body);
    // Its browsers go to the new origin only: the authorization endpoint and CORS follow.
    expect((await authorizeTo(app.id, 'https://new.example/cb')).status).toBe(200);
    expect((await authorizeTo(app.id, 'https://old.example/cb')).status).toBe(400);
    // CORS: the new origin at once; the old one is gone from the table (an instance trusts what it
    // read about an origin for 30 s).
    expect((await preflightFrom('https://new.example')).status).toBe(204);
    expect(await isRegisteredOrigin('https://old.example')).toBe(false);
    // Recorded, and the secret never in the record.
    const stored = await storedAuditText(org.orgId);
    expect(stored).toContain('client.updated');
    expect(stored).not.toContain(app.clientSecret);
  });

  it("changes an API client's addresses: its credentials stop working elsewhere at once", async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'addressed' });
    expect((await service.requestToken(client.id, client.clientSecret)).status).toBe(200);
    const changed = await change(org.token, client.id, { remoteAddresses: ['203.0.113.0/24'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ remoteAddresses: ['203.0.113.0/24'] });
    const refused = await service.requestToken(client.id, client.clientSecret);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized_client' });
  });

  it("neither changes nor deletes the console's own application, which the service manages", async () => {
    const org = await newOrganization();
    await enableConsole(org.orgId, 'test');
    const consoleApp = consoleClientId(org.orgId);
    // Positive control: another application of the organization is renamed and deleted.
    const other = await newClient(org.token, {
      name: 'other app',
      flowType: 'authorization_code',
      redirectUris: ['https://app.example/cb'],
    });
    expect((await change(org.token, other.id, { name: 'renamed' })).status).toBe(200);
    expect((await service.call('DELETE', `/idp/clients/${other.id}`, { token: org.token })).status).toBe(204);
    const renamed = await change(org.token, consoleApp, { name: 'renamed' });
    expect(renamed.status).toBe(409);
    expect(JSON.stringify(renamed.body)).toContain("The console's own application is managed by the service");
    const deleted = await service.call('DELETE', `/idp/clients/${consoleApp}`, { token: org.token });
    expect(deleted.status).toBe(409);
    // Still there, unchanged: the console keeps signing people in.
    const shown = await service.call<{ name: string }>('GET', `/idp/clients/${consoleApp}`, {
      token: org.token,
    });
    expect([shown.status, shown.body.name]).toEqual([200, 'IDP console']);
  });

  it("puts the console's application back as the service registers it when the console is enabled again", async () => {
    const org = await newOrganization();
    const id = consoleClientId(org.orgId);
    const address = consoleAddress(org.orgId);
    // As an earlier version let an administrator leave it: a public client (PKCE alone) whose
    // codes would also go to a redirect URI of their choosing.
    await createApiClient({
      id,
      organizationId: org.orgId,
      name: 'Our console',
      clientType: 'STANDARD',
      roles: [],
      policies: [],
      createdBy: 'test',
      flowType: 'authorization_code',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [address, 'https://attacker.example/cb'],
      postLogoutRedirectUris: [address, 'https://attacker.example/bye'],
      requirePushedAuthorizationRequests: true,
    });
    await expect(isRegisteredOrigin('https://attacker.example')).resolves.toBe(true);
    expect(await enableConsole(org.orgId, 'test')).toEqual({
      id,
      created: false,
      restored: ['name', 'redirectUris', 'postLogoutRedirectUris', 'requirePushedAuthorizationRequests'],
    });
    expect(await getApiClient(id)).toMatchObject({
      name: 'IDP console',
      redirectUris: [address],
      postLogoutRedirectUris: [address],
      requirePushedAuthorizationRequests: false,
    });
    await expect(isRegisteredOrigin('https://attacker.example')).resolves.toBe(false);
    const [record] = await auditTrail(org.orgId, { action: 'client.updated', targetId: id });
    expect(record?.changes).toMatchObject({
      redirectUris: { from: [address, 'https://attacker.example/cb'] },
    });
    // Positive control: as registered, enabling again changes and records nothing.
    expect((await enableConsole(org.orgId, 'test')).restored).toEqual([]);
    expect(await auditTrail(org.orgId, { action: 'client.updated', targetId: id })).toHaveLength(1);
  });

  it("moves the console's application to the service's public origin when the console is enabled again", async () => {
    const org = await newOrganization();
    const id = consoleClientId(org.orgId);
    const current = process.env.IDP_ISSUER;
    // Enabled while the service was reached at another origin (before a custom domain, say).
    process.env.IDP_ISSUER = 'https://old-idp.example.com';
    reloadConfig();
    try {
      expect((await enableConsole(org.orgId, 'test')).created).toBe(true);
    } finally {
      process.env.IDP_ISSUER = current;
      reloadConfig();
    }
    expect((await getApiClient(id))?.redirectUris).toEqual([
      `https://old-idp.example.com/console/${org.orgId}`,
    ]);
    expect((await enableConsole(org.orgId, 'test')).restored).toEqual([
      'redirectUris',
      'postLogoutRedirectUris',
    ]);
    expect((await getApiClient(id))?.redirectUris).toEqual([consoleAddress(org.orgId)]);
  });

  it('refuses a field of the other kind of client, no redirect URI, nothing to change and what stays as registered', async () => {
    const org = await newOrganization();
    const client = await newClient(org.token, { name: 'api' });
    const app = await newClient(org.token, {
      name: 'app',
      flowType: 'authorization_code',
      redirectUris: ['https://app.example/cb'],
    });
    const [clientBefore, appBefore] = [await details(org.token, client.id), await details(org.token, app.id)];
    // Positive control: a change each may make.
    expect((await change(org.token, client.id, { name: 'api' })).status).toBe(200);
    expect((await change(org.token, app.id, { name: 'app' })).status).toBe(200);
    for (const [id, body, field] of [
      [client.id, { redirectUris: ['https://x.example/cb'] }, 'redirectUris'],
      [client.id, { idTokenSignedResponseAlg: 'RS256' }, 'idTokenSignedResponseAlg'],
      [app.id, { remoteAddresses: ['10.0.0.0/8'] }, 'remoteAddresses'],
      [app.id, { redirectUris: [] }, 'redirectUris'],
    ] as const) {
      const refused = await change(org.token, id, body);
      expectStatus(refused, 400, 'Bad Request');
      expect(JSON.stringify(refused.body)).toContain(field);
    }
    for (const body of [
      {},
      { roles: [] },
      { clientType: 'RESTRICTED' },
      { redirectUris: ['http://app.example/cb'] },
    ]) {
      expectStatus(await change(org.token, app.id, body), 400, 'Bad Request');
    }
    expect(await details(org.token, client.id)).toMatchObject({
      ...clientBefore,
      lastModifiedDate: expect.any(Number),
    });
    expect(await details(org.token, app.id)).toMatchObject({
      ...appBefore,
      lastModifiedDate: expect.any(Number),
    });
  });

  it("answers 404 for another organization's client and 403 without API_CLIENTS.WRITE, changing nothing", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const client = await newClient(org.token, { name: 'kept' });
    expectStatus(await change(other.token, client.id, { name: 'taken' }), 404, 'Not Found');
    const caller = await service.callerWith(permissionsWithout('API_CLIENTS.WRITE'), {
      organization: org.orgId,
    });
    expectStatus(await change(caller.token, client.id, { name: 'taken' }), 403, 'Forbidden');
    expect(await details(org.token, client.id)).toMatchObject({ name: 'kept' });
  });
});
