import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../../shared/store/dynamo.js';
import { keys } from '../../../shared/store/keys.js';
import { assignPlugin, definePlugin } from '../../../shared/store/plugin-repository.js';
import type { ApiError, ApiRole } from '../../support/service.js';
import { errorFields, newRoleAs, permissionsWithout, useFixture, useService } from '../../support/service.js';

/** A role's permissions of plugins: read, replace, assign, revoke, and what reaches the token. */
const service = useService();

const VIEW = { module: 'REPORTS', actionName: 'VIEW' };
const EXPORT = { module: 'REPORTS', actionName: 'EXPORT' };
const SHARE = { module: 'SHARING', actionName: 'SHARE' };

/**
 * A plugin with a unique id (definitions are global) defining VIEW (d2), EXPORT (d1) and SHARE
 * (d3) — listed out of id order — assigned to `assignedTo` (the service's organization by default).
 */
const newPlugin = async (assignedTo: string[] = [service.organizationId]) => {
  const id = `plugin-${randomUUID()}`;
  await definePlugin({
    id,
    permissionDefinitions: [
      { id: `${id}-d2`, ...VIEW, description: 'See reports' },
      { id: `${id}-d1`, ...EXPORT, description: 'Export reports' },
      { id: `${id}-d3`, ...SHARE, description: 'Share reports' },
    ],
    dependentPermissions: [],
  });
  for (const orgId of assignedTo) await assignPlugin(orgId, id);
  return { id, d1: `${id}-d1`, d2: `${id}-d2`, d3: `${id}-d3` };
};

const pluginPath = (roleId: string, pluginId: string, suffix = '') =>
  `/idp/roles/${roleId}/plugin/${pluginId}${suffix}`;
const getGrants = (roleId: string, pluginId: string, as = service.admin.token) =>
  service.call<{ pluginPermissions: string[] } & ApiError>('GET', pluginPath(roleId, pluginId), {
    token: as,
  });
const setGrants = (roleId: string, pluginId: string, body: unknown, as = service.admin.token) =>
  service.call<ApiError>('PUT', pluginPath(roleId, pluginId), { token: as, body });
const change = (
  action: 'assign' | 'revoke',
  roleId: string,
  pluginId: string,
  body: unknown,
  as = service.admin.token,
) => service.call<ApiError>('POST', pluginPath(roleId, pluginId, `/${action}`), { token: as, body });
const assign = (roleId: string, pluginId: string, permissions: unknown[], as = service.admin.token) =>
  change('assign', roleId, pluginId, { pluginPermissions: permissions }, as);
const revoke = (roleId: string, pluginId: string, permissions: unknown[], as = service.admin.token) =>
  change('revoke', roleId, pluginId, { pluginPermissions: permissions }, as);

const grantIds = async (roleId: string, pluginId: string) => {
  const response = await getGrants(roleId, pluginId);
  expect(response.status).toBe(200);
  return response.body.pluginPermissions;
};

const foreign = useFixture(() => service.freshOrganization());

describe('GET and PUT /roles/{id}/plugin/{pluginId}', () => {
  it('starts empty; PUT replaces the whole set (sorted definition ids); PUT [] clears it', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    const empty = await getGrants(roleId, plugin.id);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ pluginPermissions: [] });

    const put = await setGrants(roleId, plugin.id, [SHARE, VIEW, EXPORT]);
    expect(put.status).toBe(204);
    expect(put.body).toBeUndefined();
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d1, plugin.d2, plugin.d3]);

    expect((await setGrants(roleId, plugin.id, [VIEW])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d2]);

    expect((await setGrants(roleId, plugin.id, [])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([]);
  });

  it('keeps a permission named twice once', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    expect((await setGrants(roleId, plugin.id, [EXPORT, EXPORT])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d1]);
  });
});

describe('POST /roles/{id}/plugin/{pluginId}/assign and /revoke', () => {
  it('assign adds to what the role holds, idempotently', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    const first = await assign(roleId, plugin.id, [VIEW]);
    expect(first.status).toBe(204);
    expect(first.body).toBeUndefined();
    expect((await assign(roleId, plugin.id, [SHARE, VIEW])).status).toBe(204);
    expect((await assign(roleId, plugin.id, [SHARE])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d2, plugin.d3]);
  });

  it('revoke removes only what it names, idempotently; revoking what is not held is 204', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    await setGrants(roleId, plugin.id, [VIEW, EXPORT, SHARE]);
    const first = await revoke(roleId, plugin.id, [EXPORT]);
    expect(first.status).toBe(204);
    expect(first.body).toBeUndefined();
    expect((await revoke(roleId, plugin.id, [EXPORT])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d2, plugin.d3]);
    expect((await revoke(roleId, plugin.id, [VIEW, SHARE])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([]);
  });

  it('changes one plugin without touching the grants of another', async () => {
    const a = await newPlugin();
    const b = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    await setGrants(roleId, a.id, [VIEW]);
    await setGrants(roleId, b.id, [EXPORT, SHARE]);
    await revoke(roleId, a.id, [VIEW]);
    await assign(roleId, a.id, [SHARE]);
    expect(await grantIds(roleId, a.id)).toEqual([a.d3]);
    expect(await grantIds(roleId, b.id)).toEqual([b.d1, b.d3]);
  });

  it("keeps the role's permissions, and PUT /roles/{id} keeps its plugin grants", async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token, ['USER.LIST']);
    await setGrants(roleId, plugin.id, [VIEW]);
    const updated = await service.call('PUT', `/idp/roles/${roleId}`, {
      token: service.admin.token,
      body: { permissions: ['USER.DETAILS'] },
    });
    expect(updated.status).toBe(204);
    await assign(roleId, plugin.id, [SHARE]);
    const role = await service.call<ApiRole>('GET', `/idp/roles/${roleId}`, {
      token: service.admin.token,
    });
    expect(role.body.permissions).toEqual(['USER.DETAILS']);
    expect(role.body.pluginPermissions).toEqual({ id: roleId, pluginPermissions: [VIEW, SHARE] });
  });
});

describe('what the grants show and grant', () => {
  it('GET /roles/{id} lists them across plugins under the role id', async () => {
    const [a, b] = [await newPlugin(), await newPlugin()].sort((x, y) => x.id.localeCompare(y.id));
    if (!a || !b) throw new Error('two plugins expected');
    const roleId = await newRoleAs(service, service.admin.token, ['USER.LIST']);
    await setGrants(roleId, b.id, [SHARE]);
    await setGrants(roleId, a.id, [VIEW, EXPORT]);
    const response = await service.call<ApiRole>('GET', `/idp/roles/${roleId}`, {
      token: service.admin.token,
    });
    expect(response.status).toBe(200);
    expect(response.body.pluginPermissions).toEqual({
      id: roleId,
      pluginPermissions: [EXPORT, VIEW, SHARE],
    });

    await setGrants(roleId, a.id, []);
    await setGrants(roleId, b.id, []);
    const cleared = await service.call<ApiRole>('GET', `/idp/roles/${roleId}`, {
      token: service.admin.token,
    });
    expect(cleared.body.pluginPermissions).toEqual({ id: roleId, pluginPermissions: [] });
  });

  it('reaches the token of a user holding the role and /me/ui-permissions', async () => {
    const a = await newPlugin();
    const b = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token, ['UI.ROLES']);
    await setGrants(roleId, a.id, [VIEW, SHARE]);
    await assign(roleId, b.id, [EXPORT]);
    const userId = await service.createUser();
    const grant = await service.call('PUT', `/idp/users/${userId}/roles/${roleId}/grant`, {
      token: service.admin.token,
    });
    expect(grant.status).toBe(204);

    const expected = { [a.id]: ['SHARE', 'VIEW'], [b.id]: ['EXPORT'] };
    const userToken = await service.userToken(userId);
    expect(decodeJwt(userToken).plugin_permissions).toEqual(expected);
    const mine = await service.call('GET', '/idp/me/ui-permissions', { token: userToken });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ uiPermissions: ['ROLES'], pluginsUIPermissions: expected });

    // A plugin whose grants are all revoked disappears from the claim.
    await revoke(roleId, b.id, [EXPORT]);
    expect(decodeJwt(await service.userToken(userId)).plugin_permissions).toEqual({
      [a.id]: ['SHARE', 'VIEW'],
    });
  });
});

describe('a plugin redefined without an action', () => {
  it('takes it out of the next tokens; the role still shows the grant, and revoking it is 204', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    await setGrants(roleId, plugin.id, [VIEW, EXPORT]);
    const userId = await service.createUser();
    await service.call('PUT', `/idp/users/${userId}/roles/${roleId}/grant`, { token: service.admin.token });
    // Positive control: both reach the token.
    expect(decodeJwt(await service.userToken(userId)).plugin_permissions).toEqual({
      [plugin.id]: ['EXPORT', 'VIEW'],
    });

    // The operator redefines the plugin without EXPORT.
    await definePlugin({
      id: plugin.id,
      permissionDefinitions: [{ id: plugin.d2, ...VIEW, description: 'See reports' }],
      dependentPermissions: [],
    });
    // Within a second (a removal reaches every token issued more than a second after it).
    await vi.waitFor(
      async () =>
        expect(decodeJwt(await service.userToken(userId)).plugin_permissions).toEqual({
          [plugin.id]: ['VIEW'],
        }),
      { timeout: 3_000, interval: 250 },
    );
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d1, plugin.d2]);
    // Assigning it again is refused (the plugin does not define it); revoking it is not.
    expect((await assign(roleId, plugin.id, [EXPORT])).status).toBe(400);
    expect((await revoke(roleId, plugin.id, [EXPORT])).status).toBe(204);
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d2]);
  });
});

describe('many plugin grants', () => {
  it('holds at most 200 plugin permissions in a role across its plugins (409 beyond), and answers them all', async () => {
    const definitions = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        id: `${prefix}-${index}`,
        module: 'BULK',
        actionName: `A${index}`,
        description: 'Bulk',
      }));
    const [first, second] = [`bulk-${randomUUID()}`, `bulk-${randomUUID()}`];
    for (const id of [first, second]) {
      await definePlugin({ id, permissionDefinitions: definitions(id, 150), dependentPermissions: [] });
      await assignPlugin(service.organizationId, id);
    }
    const all = (count: number) =>
      definitions('', count).map(({ module, actionName }) => ({ module, actionName }));
    const roleId = await newRoleAs(service, service.admin.token);
    expect((await setGrants(roleId, first, all(150))).status).toBe(204);
    // Positive control: 50 more of the second plugin make 200.
    expect((await setGrants(roleId, second, all(50))).status).toBe(204);
    const role = await service.call<ApiRole>('GET', `/idp/roles/${roleId}`, { token: service.admin.token });
    expect(role.status).toBe(200);
    expect(role.body.pluginPermissions.pluginPermissions).toHaveLength(200);
    // One more is refused, and the role keeps what it held; fewer is fine.
    const beyond = await assign(roleId, second, [{ module: 'BULK', actionName: 'A50' }]);
    expect(beyond.status).toBe(409);
    expect(beyond.body.message).toContain('at most 200');
    expect(await grantIds(roleId, second)).toHaveLength(50);
    expect((await revoke(roleId, first, all(1))).status).toBe(204);
  });

  it('answers a role an earlier version let grow past 200 in full, and lets it shrink but not grow', async () => {
    const definitions = (plugin: string, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        id: `${plugin}-${index}`,
        module: 'BULK',
        actionName: `A${index}`,
      }));
    const [first, second] = [`bulk-${randomUUID()}`, `bulk-${randomUUID()}`];
    for (const id of [first, second]) {
      await definePlugin({
        id,
        permissionDefinitions: definitions(id, 150).map((grant) => ({ ...grant, description: 'Bulk' })),
        dependentPermissions: [],
      });
      await assignPlugin(service.organizationId, id);
    }
    const actions = (count: number) =>
      definitions('', count).map(({ module, actionName }) => ({ module, actionName }));
    const roleId = await newRoleAs(service, service.admin.token);
    // Positive control: within the limit, through the API.
    expect((await setGrants(roleId, first, actions(150))).status).toBe(204);
    // What a role written before the limit may hold: 150 + 100 grants of two plugins.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.role(service.organizationId, roleId),
        UpdateExpression: 'SET pluginPermissions = :grants',
        ExpressionAttributeValues: {
          ':grants': { [first]: definitions(first, 150), [second]: definitions(second, 100) },
        },
      }),
    );
    const read = () => service.call<ApiRole>('GET', `/idp/roles/${roleId}`, { token: service.admin.token });
    const role = await read();
    expect(role.status).toBe(200);
    expect(role.body.pluginPermissions.pluginPermissions).toHaveLength(250);
    const page = await service.call<ApiRole[]>('GET', '/idp/roles', { token: service.admin.token });
    expect(page.status).toBe(200);
    const listed = page.body.find((candidate) => candidate.id === roleId);
    expect(listed?.pluginPermissions.pluginPermissions).toHaveLength(250);
    // Revoking shrinks it; nothing more is added while it is over the limit.
    expect((await revoke(roleId, second, actions(10))).status).toBe(204);
    expect((await assign(roleId, second, actions(1))).status).toBe(409);
    expect((await read()).body.pluginPermissions.pluginPermissions).toHaveLength(240);
  });
});

describe('refused requests', () => {
  it('400 for a {module, actionName} the plugin does not define, naming its position; nothing changes', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    await setGrants(roleId, plugin.id, [VIEW]);
    // Right action, wrong module: no match.
    const wrongModule = { module: 'SHARING', actionName: 'VIEW' };

    const put = await setGrants(roleId, plugin.id, [EXPORT, wrongModule]);
    expect(put.status).toBe(400);
    expect(put.body.message).toBe(`Plugin ${plugin.id} defines no such permission`);
    expect(put.body.errorDetails).toEqual([
      {
        message: 'No permission definition of the plugin has this module and actionName',
        field: 'body.1',
        rejectedValue: wrongModule,
      },
    ]);
    for (const action of ['assign', 'revoke'] as const) {
      const response = await change(action, roleId, plugin.id, {
        pluginPermissions: [{ module: 'REPORTS', actionName: 'DELETE' }, VIEW],
      });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['body.pluginPermissions.0']);
    }
    expect(await grantIds(roleId, plugin.id)).toEqual([plugin.d2]);
  });

  it('400 for a malformed body', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    const cases: [string, unknown, string[]][] = [
      ['PUT', { pluginPermissions: [VIEW] }, ['body']],
      ['PUT', [{ module: 'REPORTS' }], ['body.0.actionName']],
      ['PUT', [{ ...VIEW, extra: true }], ['body.0.extra']],
      ['PUT', [{ module: 'REPORTS', actionName: '' }], ['body.0.actionName']],
      ['assign', [VIEW], ['body']],
      ['assign', {}, ['body.pluginPermissions']],
      ['assign', { pluginPermissions: [VIEW], extra: 1 }, ['body.extra']],
      ['revoke', { pluginPermissions: [{ actionName: 'VIEW' }] }, ['body.pluginPermissions.0.module']],
      ['revoke', { pluginPermissions: [{ ...VIEW, id: 'x' }] }, ['body.pluginPermissions.0.id']],
    ];
    for (const [action, body, fields] of cases) {
      const response =
        action === 'PUT'
          ? await setGrants(roleId, plugin.id, body)
          : await change(action as 'assign' | 'revoke', roleId, plugin.id, body);
      expect(response.status, `${action} ${JSON.stringify(body)}`).toBe(400);
      expect(errorFields(response), `${action} ${JSON.stringify(body)}`).toEqual(fields);
    }
    const raw = await service.call<ApiError>('PUT', pluginPath(roleId, plugin.id), {
      token: service.admin.token,
      rawBody: '[{"module":',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(400);
    expect(await grantIds(roleId, plugin.id)).toEqual([]);
  });

  it('404 for a plugin that is defined but not assigned to the organization, and for an unknown one', async () => {
    const theirs = await newPlugin([foreign.orgId]);
    const roleId = await newRoleAs(service, service.admin.token);
    for (const pluginId of [theirs.id, `plugin-${randomUUID()}`]) {
      for (const response of [
        await getGrants(roleId, pluginId),
        await setGrants(roleId, pluginId, [VIEW]),
        await assign(roleId, pluginId, [VIEW]),
        await revoke(roleId, pluginId, [VIEW]),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('Plugin not found');
      }
    }
    const role = await service.call<ApiRole>('GET', `/idp/roles/${roleId}`, { token: service.admin.token });
    expect(role.body.pluginPermissions).toEqual({ id: roleId, pluginPermissions: [] });
  });

  it('404 for an unknown role, an archived role and a role of another organization', async () => {
    const plugin = await newPlugin([service.organizationId, foreign.orgId]);
    const archived = await newRoleAs(service, service.admin.token);
    await setGrants(archived, plugin.id, [VIEW]);
    expect(
      (await service.call('DELETE', `/idp/roles/${archived}`, { token: service.admin.token })).status,
    ).toBe(204);
    const theirs = await newRoleAs(service, foreign.token);
    for (const roleId of ['no-such-role', archived, theirs]) {
      for (const response of [
        await getGrants(roleId, plugin.id),
        await setGrants(roleId, plugin.id, [EXPORT]),
        await assign(roleId, plugin.id, [EXPORT]),
        await revoke(roleId, plugin.id, [VIEW]),
      ]) {
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('Role not found');
      }
    }
    const theirGrants = await getGrants(theirs, plugin.id, foreign.token);
    expect(theirGrants.body).toEqual({ pluginPermissions: [] });
  });

  it('403 without ROLES.UPDATE for changes and without ROLES.DETAILS for reads', async () => {
    const plugin = await newPlugin();
    const roleId = await newRoleAs(service, service.admin.token);
    await setGrants(roleId, plugin.id, [VIEW]);
    const noUpdate = (await service.callerWith(permissionsWithout('ROLES.UPDATE'))).token;
    for (const response of [
      await setGrants(roleId, plugin.id, [EXPORT], noUpdate),
      await assign(roleId, plugin.id, [EXPORT], noUpdate),
      await revoke(roleId, plugin.id, [VIEW], noUpdate),
    ]) {
      expect(response.status).toBe(403);
      expect(response.body.message).toBe('Missing permission: ROLES.UPDATE');
    }
    expect((await getGrants(roleId, plugin.id, noUpdate)).body).toEqual({ pluginPermissions: [plugin.d2] });

    const noDetails = (await service.callerWith(permissionsWithout('ROLES.DETAILS'))).token;
    const read = await getGrants(roleId, plugin.id, noDetails);
    expect(read.status).toBe(403);
    expect(read.body.message).toBe('Missing permission: ROLES.DETAILS');
  });
});

describe('concurrency', () => {
  it('10 parallel assigns of different definitions on one role are all kept', async () => {
    const id = `plugin-${randomUUID()}`;
    const definitions = Array.from({ length: 10 }, (_, index) => ({
      id: `${id}-${String(index).padStart(2, '0')}`,
      module: 'BULK',
      actionName: `ACTION_${index}`,
      description: `Action ${index}`,
    }));
    await definePlugin({ id, permissionDefinitions: definitions, dependentPermissions: [] });
    await assignPlugin(service.organizationId, id);
    const roleId = await newRoleAs(service, service.admin.token);
    const responses = await Promise.all(
      definitions.map(({ module, actionName }) => assign(roleId, id, [{ module, actionName }])),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(204));
    expect(await grantIds(roleId, id)).toEqual(definitions.map((definition) => definition.id));
  });
});
