import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { PERMISSION_CATALOGUE } from '../../shared/domain/permission-catalogue.js';
import { updateApiClient } from '../../shared/store/api-client-repository.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { createTestOrganization, errorFields, useService } from '../support/service.js';

// The logs test reads INFO lines (API Gateway's access log among them); Powertools Logger returns
// to its starting level at every invocation, so the level is set before it is created.
vi.hoisted(() => {
  process.env.IDP_LOG_LEVEL = 'INFO';
});

const service = useService();

describe('authentication at the gateway', () => {
  it('refuses a request without a token with 401', async () => {
    const response = await service.call('GET', '/idp/permissions');
    expect(response.status).toBe(401);
    // RFC 6750 section 3.1: a request without credentials gets a challenge without an error code.
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('refuses what is not a JWT with 401, naming why', async () => {
    const response = await service.call('GET', '/idp/permissions', { token: 'not-a-jwt' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer scope="" error="invalid_token" error_description="token contains an invalid number of segments"',
    );
    // Tokens of another issuer, audience or key, and expired ones: token-verification.e2e.test.ts.
  });
});

describe('authorization', () => {
  it('answers 403 when the token lacks the permission', async () => {
    const { token } = await service.callerWith(['USER.LIST']);
    const response = await service.call<{ message: string }>('GET', '/idp/permissions', { token });
    expect(response.status).toBe(403);
    expect(response.body.message).toContain('PERMISSIONS.LIST');
  });

  it('grants dependent permissions transitively (ROLES.UPDATE implies PERMISSIONS.LIST)', async () => {
    const { token } = await service.callerWith(['ROLES.UPDATE']);
    expect((await service.call('GET', '/idp/permissions', { token })).status).toBe(200);
    expect((await service.call('GET', '/idp/permissions/USER.LIST', { token })).status).toBe(403);
  });
});

describe('permission catalogue', () => {
  it('lists every catalogue permission, oldest first, in the spec shape', async () => {
    const response = await service.call<{ id: string }[]>('GET', '/idp/permissions', {
      token: service.admin.token,
    });
    expect(response.status).toBe(200);
    expect(response.body.map((permission) => permission.id)).toEqual(PERMISSION_CATALOGUE.map((p) => p.id));
    const modules = new Set(PERMISSION_CATALOGUE.map((p) => p.module));
    for (const module of [
      'API_CLIENTS',
      'PERMISSIONS',
      'ROLES',
      'DETAILED_PERMISSION',
      'USER',
      'USER_ROLES',
      'USER_POLICIES',
      'USER_GROUP',
      'SSO',
      'UI',
    ]) {
      expect(modules).toContain(module);
    }
  });

  it('reads one permission and answers 404 for an unknown id', async () => {
    const found = await service.call('GET', '/idp/permissions/USER.LIST', { token: service.admin.token });
    expect(found.body).toEqual({
      id: 'USER.LIST',
      module: 'USER',
      accessType: 'LIST',
      moduleDisplayName: 'Users',
      accessTypeDisplayName: 'List',
    });
    const missing = await service.call<{ status: number; requestId: string }>(
      'GET',
      '/idp/permissions/NOPE.NOPE',
      {
        token: service.admin.token,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body.requestId).toBe(missing.headers.get('apigw-requestid'));
  });

  it('lists the direct dependencies of permissions', async () => {
    const response = await service.call<{ permissionId: string; dependentPermissionIds: string[] }[]>(
      'GET',
      '/idp/dependentPermissions',
      { token: service.admin.token },
    );
    expect(response.body).toContainEqual({
      permissionId: 'USER.UPDATE',
      dependentPermissionIds: ['USER.DETAILS'],
    });
  });
});

describe('plugins', () => {
  it("lists and reads only the caller organization's plugins", async () => {
    const other = await createTestOrganization();
    const definition = {
      id: `plugin-${randomUUID().slice(0, 6)}`,
      permissionDefinitions: [
        { module: 'REPORTS', actionName: 'EXPORT', description: 'Export reports', id: 'd1' },
      ],
      dependentPermissions: [{ permissionId: 'd1', dependentPermissionIds: [] }],
    };
    await definePlugin(definition);
    await definePlugin({ ...definition, id: 'foreign-plugin' });
    await assignPlugin(service.organizationId, definition.id);
    await assignPlugin(other.id, 'foreign-plugin');

    const list = await service.call('GET', '/idp/plugins', { token: service.admin.token });
    expect(list.body).toEqual([{ id: definition.id }]);
    const detail = await service.call<Record<string, unknown>>('GET', `/idp/plugins/${definition.id}`, {
      token: service.admin.token,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.permissionDefinitions).toEqual(definition.permissionDefinitions);
    expect(
      (await service.call('GET', '/idp/plugins/foreign-plugin', { token: service.admin.token })).status,
    ).toBe(404);
  });
});

describe('organizations', () => {
  it("shows the caller's organization and hides every other one", async () => {
    const other = await createTestOrganization({ name: 'Secret Corp' });
    const list = await service.call<{ id: string }[]>('GET', '/idp/organizations', {
      token: service.admin.token,
    });
    expect(list.body.map((organization) => organization.id)).toEqual([service.organizationId]);
    const own = await service.call<{ id: string; mfa: { enabled: boolean } }>(
      'GET',
      `/idp/organizations/${service.organizationId}`,
      { token: service.admin.token },
    );
    expect(own.body).toMatchObject({ id: service.organizationId, mfa: { enabled: false } });
    const foreign = await service.call('GET', `/idp/organizations/${other.id}`, {
      token: service.admin.token,
    });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('Secret Corp');
  });
});

describe('UI permissions of the caller', () => {
  it('reports the access types of the UI module and plugin actions', async () => {
    const { token } = await service.callerWith(['UI.USERS', 'USER.LIST']);
    const response = await service.call('GET', '/idp/me/ui-permissions', { token });
    expect(response.body).toEqual({ uiPermissions: ['USERS'], pluginsUIPermissions: {} });
  });
});

describe('request validation', () => {
  it('answers 400 naming the field for an unknown body key and for a wrong type', async () => {
    const unknownKey = await service.call<{ errorDetails: { field: string }[] }>(
      'POST',
      '/idp/services/by-ids',
      {
        token: service.admin.token,
        body: { ids: ['x'], foo: 1 },
      },
    );
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.errorDetails).toContainEqual(
      expect.objectContaining({ field: 'body.foo', message: 'Unrecognized key', rejectedValue: 1 }),
    );
    const wrongType = await service.call<{ errorDetails: { field: string }[] }>(
      'POST',
      '/idp/services/by-ids',
      {
        token: service.admin.token,
        body: { ids: 'x' },
      },
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.errorDetails).toContainEqual(expect.objectContaining({ field: 'body.ids' }));
  });

  it('answers 400 for malformed JSON, 415 for another content type, 400 for an unknown query key', async () => {
    const malformed = await service.call('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      rawBody: '{"ids": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    const wrongType = await service.call('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      rawBody: 'ids=1',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    const query = await service.call('GET', '/idp/plugins?page=abc', { token: service.admin.token });
    expect(query.status).toBe(400);
  });

  it('answers 413 for a JSON body over 1 MiB', async () => {
    const response = await service.call('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      body: { ids: ['a'.repeat(1024 * 1024)] },
    });
    expect(response.status).toBe(413);
  });
});

describe('services by ids', () => {
  it("resolves the organization's users and clients; unknown or foreign ids come back with id only", async () => {
    const other = await createTestOrganization();
    const foreign = await service.callerWith(['USER.ADD'], { organization: other.id });
    const foreignUserId = await service.createUser({
      email: 'someone@foreign.example',
      as: foreign,
      name: 'Foreign',
    });
    const userId = await service.createUser({ email: 'resolved@example.com', name: 'Resolved User' });
    const response = await service.call('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      body: { ids: [service.clientId, 'unknown-id', userId, foreign.principalId, foreignUserId] },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: service.clientId, name: 'Local administrator' },
      { id: 'unknown-id' },
      { id: userId, name: 'Resolved User' },
      { id: foreign.principalId },
      { id: foreignUserId },
    ]);
  });

  it('takes 1 to 100 ids: none and 101 are 400, 100 are resolved', async () => {
    const ids = (count: number) => Array.from({ length: count }, (_, index) => `id-${index}`);
    for (const count of [0, 101]) {
      const response = await service.call('POST', '/idp/services/by-ids', {
        token: service.admin.token,
        body: { ids: ids(count) },
      });
      expect(response.status, `${count} ids`).toBe(400);
      expect(errorFields(response)).toEqual(['body.ids']);
    }
    const hundred = await service.call<unknown[]>('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      body: { ids: ids(100) },
    });
    expect([hundred.status, hundred.body.length]).toEqual([200, 100]);
  });
});

describe('logs', () => {
  it('never contain the bearer token or the client secret', async () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return original(chunk, ...rest);
    }) as typeof process.stdout.write;
    try {
      const token = await service.token();
      await service.call('GET', '/idp/permissions', { token });
      await service.call('POST', '/idp/services/by-ids', { token, body: { ids: [service.clientId] } });
      await service.call('GET', '/idp/permissions/NOPE', { token });
    } finally {
      process.stdout.write = original;
    }
    const logs = written.join('');
    // API Gateway's access log line (the local gateway writes it at INFO, as deployed).
    expect(logs).toContain('"routeKey":"GET /idp/permissions"');
    expect(logs).not.toContain(service.clientSecret);
    expect(logs).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for a repeat and refuses the key with another body (422)', async () => {
    const { principalId: clientId } = await service.callerWith([], { name: 'before' });
    const key = randomUUID();
    const request = {
      token: service.admin.token,
      body: { ids: [clientId] },
      headers: { 'idempotency-key': key },
    };
    const first = await service.call('POST', '/idp/services/by-ids', request);
    expect(first.body).toEqual([{ id: clientId, name: 'before' }]);

    await updateApiClient(service.organizationId, clientId, { name: 'after' }, 'test');
    const replay = await service.call('POST', '/idp/services/by-ids', request);
    expect(replay.body).toEqual([{ id: clientId, name: 'before' }]);
    const withoutKey = await service.call('POST', '/idp/services/by-ids', {
      token: service.admin.token,
      body: { ids: [clientId] },
    });
    expect(withoutKey.body).toEqual([{ id: clientId, name: 'after' }]);

    const conflicting = await service.call('POST', '/idp/services/by-ids', {
      ...request,
      body: { ids: [clientId, 'other'] },
    });
    expect(conflicting.status).toBe(422);
  });
});
