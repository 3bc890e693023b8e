import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/admin/cli.js';
import { operatorActor } from '../../bin/admin/operator.js';
import { HOUR_MILLIS, hourOf } from '../../shared/audit/digest.js';
import type { AuditRecord } from '../../shared/audit/record.js';
import { FileSecretStore } from '../../shared/auth/file-secret-store.js';
import { ssoSecretName } from '../../shared/auth/secret-store.js';
import { writeAuditRecord } from '../../shared/store/audit-records.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { scimTokenOf } from '../../shared/store/scim-tokens.js';
import { linkSsoSubject } from '../../shared/store/sso-links.js';
import { getSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { getUser } from '../../shared/store/user-repository.js';
import { runsAdminCli } from '../support/database.js';
import { getItem, uniqueEmail, useService } from '../support/service.js';

/**
 * The operator CLI against the DynamoDB (and secret files) of a running local service: most
 * commands run in this process (`runCli`, what `bin/idp-admin.ts` calls), the standard-input
 * ones as an operator runs them, `npm run --silent admin -- ...` in a child process.
 */

runsAdminCli();
const service = useService();

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const admin = async (args: string[], stdin = ''): Promise<CliRun> => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--endpoint', dynamoEndpoint()], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => stdin,
  });
  return {
    code,
    stdout: out.map((text) => `${text}\n`).join(''),
    stderr: err.map((text) => `${text}\n`).join(''),
  };
};

const adminProcess = (args: string[], stdin = ''): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'admin', '--', ...args, '--endpoint', dynamoEndpoint()], {
      // The test's own database inside the shared DynamoDB Local is chosen by the access key id.
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });

const dynamoEndpoint = () => process.env.IDP_DYNAMODB_ENDPOINT as string;

/** Runs a command with `--json` and answers its parsed output; fails on a non-zero exit. */
const adminJson = async <T>(args: string[], stdin?: string, run = admin): Promise<T> => {
  const result = await run([...args, '--json'], stdin);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
};

/** `audit list --json`: one record per line. */
/** What a listing command prints with `--json`: one JSON value a line. */
const jsonLines = async <T>(args: string[]): Promise<T[]> => {
  const result = await admin([...args, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
};
const auditList = (orgId: string, ...filters: string[]) =>
  jsonLines<AuditRecord>(['audit', 'list', '--org', orgId, ...filters]);

/** Who the CLI's records name: the OS user running it. */
const operator = () => ({ type: 'operator', id: operatorActor().id });

interface CreatedClient {
  id: string;
  clientSecret: string;
  organizationId: string;
  roles: string[];
}

const tokenResponse = (clientId: string, clientSecret: string) =>
  service.requestToken(clientId, clientSecret);

describe('idp-admin', () => {
  it('creates a second organization and a client that sees only its own organization', async () => {
    const org = await adminJson<{ id: string; name: string; rateLimit: unknown }>([
      'org',
      'create',
      '--name',
      'Second organization',
      '--rate',
      '1000',
      '--burst',
      '0',
    ]);
    expect(org).toMatchObject({ name: 'Second organization', rateLimit: { rate: 1000, burst: 0 } });

    const client = await adminJson<CreatedClient>([
      'client',
      'create',
      '--org',
      org.id,
      '--name',
      'Reporting',
      '--permissions',
      'USER.LIST,SSO.ADMIN',
    ]);
    expect(client.organizationId).toBe(org.id);
    const token = await service.token(client.id, client.clientSecret);

    const organizations = await service.call<{ id: string }[]>('GET', '/idp/organizations', { token });
    expect(organizations.body.map((o) => o.id)).toEqual([org.id]);
    expect(
      (await service.call('GET', `/idp/organizations/${service.organizationId}`, { token })).status,
    ).toBe(404);
    // Users of the first organization are not visible to it, and its permissions are exactly the two.
    await service.createUser({ email: 'only-in-the-first@example.com' });
    expect((await service.call('GET', '/idp/users', { token })).body).toEqual([]);
    expect((await service.call('GET', '/idp/roles', { token })).status).toBe(403);

    // The same permission set reuses the role.
    const second = await adminJson<CreatedClient>([
      'client',
      'create',
      '--org',
      org.id,
      '--name',
      'Reporting 2',
      '--permissions',
      'SSO.ADMIN,USER.LIST',
    ]);
    expect(second.roles).toEqual(client.roles);

    const listed = await adminJson<{ id: string }[]>(['org', 'list']);
    expect(listed.map((o) => o.id)).toEqual(expect.arrayContaining([service.organizationId, org.id]));
  });

  it('org update changes the rate limit and MFA of an organization, and nothing else', async () => {
    const orgId = service.organizationId;
    const storedItem = () => getItem(keys.organization(orgId));
    const token = await service.token();
    const userId = await service.createUser({ email: 'mfa-by-cli@example.com' });
    const before = await storedItem();
    const resetMfa = async () =>
      (await service.call('PUT', `/idp/users/${userId}/resetMfa`, { token })).status;
    expect(await resetMfa()).toBe(400);

    const run = await admin(['org', 'update', '--id', orgId, '--rate', '50000', '--burst', '7', '--mfa']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Updated organization ${orgId}`);
    expect(run.stdout).toContain('MFA on; 50000 requests/s + burst 7');
    expect(run.stdout).toContain('60 s');
    expect(await storedItem()).toEqual({
      ...before,
      mfaEnabled: true,
      rateLimit: { rate: 50000, burst: 7 },
      updatedAt: expect.any(Number),
    });
    expect(await resetMfa()).toBe(204);

    const off = await adminJson<{ id: string }>(['org', 'update', '--id', orgId, '--no-mfa']);
    expect(off).toMatchObject({ id: orgId, mfaEnabled: false, rateLimit: { rate: 50000, burst: 7 } });
    expect(await resetMfa()).toBe(400);

    // Each change recorded by the operator, naming what changed; repeating a setting records nothing.
    await adminJson(['org', 'update', '--id', orgId, '--no-mfa']);
    const [second, first] = await auditList(
      orgId,
      '--action',
      'organization.updated',
      '--actor',
      operator().id,
    );
    expect(first).toMatchObject({
      actor: operator(),
      targets: [{ type: 'organization', id: orgId }],
      changes: {
        mfaEnabled: { from: false, to: true },
        rateLimit: { from: { rate: 100000, burst: 0 }, to: { rate: 50000, burst: 7 } },
      },
    });
    expect(second?.changes).toEqual({ mfaEnabled: { from: true, to: false } });
    expect(await auditList(orgId, '--action', 'organization.updated', '--actor', operator().id)).toHaveLength(
      2,
    );
  });

  it('a client refused for an unknown role leaves no permissions role behind', async () => {
    const refused = await admin([
      'client',
      'create',
      '--org',
      service.organizationId,
      '--name',
      'Refused',
      '--permissions',
      'USER_GROUP.READ',
      '--roles',
      'no-such-role',
    ]);
    expect([refused.code, refused.stderr.trim()]).toEqual([1, 'error: Role no-such-role not found']);
    const accepted = await adminJson<{ permissionsRole: { created: boolean } }>([
      'client',
      'create',
      '--org',
      service.organizationId,
      '--name',
      'Accepted',
      '--permissions',
      'USER_GROUP.READ',
    ]);
    expect(accepted.permissionsRole.created).toBe(true);
  });

  it('keeps a client within 40 roles: --permissions adds one, so 40 --roles with it are refused', async () => {
    const roles = Array.from({ length: 40 }, (_, index) => `role-${index}`).join(',');
    const refused = await admin([
      ...['client', 'create', '--org', service.organizationId, '--name', 'Crowded'],
      ...['--roles', roles, '--permissions', 'USER_GROUP.READ'],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: --roles: at most 39 with --permissions');
  });

  it('does not reuse a permissions role someone changed by hand: it takes the next name', async () => {
    const create = (name: string) =>
      adminJson<{ permissionsRole: { id: string; name: string; created: boolean } }>([
        'client',
        'create',
        '--org',
        service.organizationId,
        '--name',
        name,
        '--permissions',
        'USER_GROUP.UPDATE',
      ]);
    const first = (await create('First')).permissionsRole;
    const widened = await service.call('PUT', `/idp/roles/${first.id}`, {
      token: await service.token(),
      body: { permissions: ['USER_GROUP.UPDATE', 'USER.DELETE'] },
    });
    expect(widened.status).toBe(204);
    const second = (await create('Second')).permissionsRole;
    expect(second).toEqual({ id: expect.any(String), name: `${first.name} (2)`, created: true });
    expect((await create('Third')).permissionsRole).toEqual({ ...second, created: false });
    // Widened with a plugin's permission, not a catalogue one: changed all the same.
    await definePlugin({
      id: 'widening',
      permissionDefinitions: [{ id: 'w-export', module: 'W', actionName: 'EXPORT', description: 'Export' }],
      dependentPermissions: [],
    });
    await assignPlugin(service.organizationId, 'widening');
    const pluginWidened = await service.call('PUT', `/idp/roles/${second.id}/plugin/widening`, {
      token: await service.token(),
      body: [{ module: 'W', actionName: 'EXPORT' }],
    });
    expect(pluginWidened.status).toBe(204);
    expect((await create('Fourth')).permissionsRole).toEqual({
      id: expect.any(String),
      name: `${first.name} (3)`,
      created: true,
    });
  });

  it('registers an application that must push its sign-in requests, and changes that', async () => {
    const application = await adminJson<{ id: string; requirePushedAuthorizationRequests: boolean }>([
      ...['client', 'create', '--org', service.organizationId, '--name', 'Pushing'],
      ...['--flow', 'authorization_code', '--redirect-uris', 'https://app.example/cb', '--require-par'],
    ]);
    expect(application.requirePushedAuthorizationRequests).toBe(true);
    const shown = async () =>
      (
        await service.call<{ requirePushedAuthorizationRequests: boolean }>(
          'GET',
          `/idp/clients/${application.id}`,
          { token: await service.token() },
        )
      ).body.requirePushedAuthorizationRequests;
    expect(await shown()).toBe(true);
    const off = await adminJson<{ requirePushedAuthorizationRequests: boolean }>([
      ...['client', 'update', '--id', application.id, '--no-require-par'],
    ]);
    expect([off.requirePushedAuthorizationRequests, await shown()]).toEqual([false, false]);
    const both = await admin([
      'client',
      'update',
      '--id',
      application.id,
      '--require-par',
      '--no-require-par',
    ]);
    expect([both.code, both.stderr]).toEqual([
      2,
      expect.stringContaining('give --require-par or --no-require-par, not both'),
    ]);
    const apiClient = await admin([
      ...['client', 'create', '--org', service.organizationId, '--name', 'Machine', '--require-par'],
    ]);
    expect([apiClient.code, apiClient.stderr]).toEqual([2, expect.stringContaining('--require-par')]);
  });

  it('registers a private_key_jwt client from a key set file, changes its keys, and refuses a file that is no key set', async () => {
    const file = (name: string, content: unknown) => {
      const path = join(service.dataDirectory, name);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
      return path;
    };
    const keyOf = (kid: string) => ({
      ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as object),
      kid,
    });
    const first = file('first.jwks.json', { keys: [keyOf('k1')] });
    const client = await adminJson<{ id: string; clientSecret: string; tokenEndpointAuthMethod: string }>([
      ...['client', 'create', '--org', service.organizationId, '--name', 'Signing machine'],
      ...['--auth-method', 'private_key_jwt', '--jwks-file', first],
    ]);
    expect([client.clientSecret, client.tokenEndpointAuthMethod]).toEqual(['', 'private_key_jwt']);
    const next = { keys: [keyOf('k2')] };
    const changed = await adminJson<{ jwks: unknown }>([
      ...['client', 'update', '--id', client.id, '--jwks-file', file('next.jwks.json', next)],
    ]);
    expect(changed.jwks).toEqual(next);
    const broken = await admin([
      'client',
      'update',
      '--id',
      client.id,
      '--jwks-file',
      file('broken.json', '{'),
    ]);
    expect([broken.code, broken.stderr]).toEqual([2, expect.stringContaining('is not JSON')]);
    const missing = await admin([
      'client',
      'update',
      '--id',
      client.id,
      '--jwks-file',
      join(service.dataDirectory, 'none.json'),
    ]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('cannot read')]);
    const privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      format: 'jwk',
    });
    const refused = await admin([
      'client',
      'update',
      '--id',
      client.id,
      '--jwks-file',
      file('private.json', { keys: [privateKey] }),
    ]);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--jwks-file')]);
  });

  it('prints a readable summary without --json, with the id and secret of a new client', async () => {
    const run = await admin(['client', 'create', '--org', service.organizationId, '--name', 'Readable']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/client_id: +\S+/);
    expect(run.stdout).toMatch(/client_secret: +\S+/);
    expect(run.stdout.trim().startsWith('{')).toBe(false);
  });

  it('rotates a secret (the previous one still works in its grace) and deletes a client', async () => {
    const client = await adminJson<CreatedClient>([
      'client',
      'create',
      '--org',
      service.organizationId,
      '--name',
      'Rotated',
      '--all-permissions',
    ]);
    const rotated = await adminJson<{ clientSecret: string }>(['client', 'rotate', '--id', client.id]);
    expect(rotated.clientSecret).not.toBe(client.clientSecret);
    expect((await tokenResponse(client.id, client.clientSecret)).status).toBe(200);
    expect((await tokenResponse(client.id, rotated.clientSecret)).status).toBe(200);

    const noGrace = await adminJson<{ clientSecret: string }>([
      'client',
      'rotate',
      '--id',
      client.id,
      '--grace-seconds',
      '0',
    ]);
    expect((await tokenResponse(client.id, rotated.clientSecret)).status).toBe(401);

    // A change through the API's own rules: an API client's addresses, and nothing of the other kind.
    const narrowed = await adminJson<{ remoteAddresses: string[] }>([
      ...['client', 'update', '--id', client.id, '--remote-addresses', '203.0.113.0/24'],
    ]);
    expect(narrowed.remoteAddresses).toEqual(['203.0.113.0/24']);
    expect((await tokenResponse(client.id, noGrace.clientSecret)).status).toBe(400);
    const misplaced = await admin([
      'client',
      'update',
      '--id',
      client.id,
      '--redirect-uris',
      'https://x.example/cb',
    ]);
    expect(misplaced.code).toBe(1);
    expect(misplaced.stderr).toContain('Only for an authorization_code application');
    const nothing = await admin(['client', 'update', '--id', client.id]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('Give at least one field to change');

    await adminJson(['client', 'delete', '--id', client.id]);
    expect((await tokenResponse(client.id, noGrace.clientSecret)).status).toBe(401);
    const again = await admin(['client', 'delete', '--id', client.id]);
    expect([again.code, again.stderr.trim()]).toEqual([1, `error: API client ${client.id} not found`]);
  });

  it('binds an SSO provider with a secret from standard input; the API lists it, the store holds it', async () => {
    const provider = await adminJson<{ organizationIds: string[] }>(
      [
        'sso',
        'create',
        '--client-id',
        'cli.sso',
        '--orgs',
        service.organizationId,
        '--secret-stdin',
        '--expires',
        '42',
      ],
      'from-stdin\n',
      // As an operator runs it: a child process reading the secret from a pipe.
      adminProcess,
    );
    expect(provider.organizationIds).toEqual([service.organizationId]);
    const secrets = new FileSecretStore(join(service.dataDirectory, 'secrets'));
    const stored = await getSsoProvider('cli.sso');
    expect(await secrets.get(ssoSecretName('cli.sso', stored?.secretVersion))).toBe('from-stdin');
    const listed = await service.call('GET', '/idp/sso-providers', { token: await service.token() });
    expect(listed.body).toContainEqual({ clientId: 'cli.sso', clientSecretExpirationDate: 42 });

    const onCommandLine = await admin([
      'sso',
      'create',
      '--client-id',
      'x',
      '--orgs',
      'o',
      '--secret',
      'oops',
    ]);
    expect(onCommandLine.code).toBe(2);
    expect(onCommandLine.stderr).toContain('standard input');
    expect(onCommandLine.stderr).not.toContain('oops');
  });

  it('configures how people sign in through an SSO provider, unbinds it from an organization, deletes it', async () => {
    const other = await service.freshOrganization();
    const orgs = `${service.organizationId},${other.orgId}`;
    const configured = await adminJson<Record<string, unknown>>(
      [
        'sso',
        'create',
        '--client-id',
        'cli.fed',
        '--orgs',
        orgs,
        '--secret-stdin',
        '--issuer',
        'https://login.example.com/tenant',
        '--display-name',
        'Example Login',
        '--domains',
        'Example.COM, example.org',
        '--jit',
        '--trust-mfa',
      ],
      'fed-secret\n',
    );
    expect(configured).toMatchObject({
      issuer: 'https://login.example.com/tenant',
      scopes: null,
      displayName: 'Example Login',
      emailDomains: ['example.com', 'example.org'],
      jitProvisioning: true,
      trustedForMfa: true,
    });
    expect(JSON.stringify(configured)).not.toContain('fed-secret');
    // The API keeps the spec's closed shape.
    const listed = await service.call('GET', '/idp/sso-providers', { token: await service.token() });
    expect(listed.body).toContainEqual({ clientId: 'cli.fed', clientSecretExpirationDate: 0 });

    // Omitted settings stay; --no-jit turns just-in-time creation off.
    const changed = await adminJson<Record<string, unknown>>([
      'sso',
      'create',
      '--client-id',
      'cli.fed',
      '--orgs',
      orgs,
      '--no-jit',
    ]);
    expect(changed).toMatchObject({
      jitProvisioning: false,
      trustedForMfa: true,
      displayName: 'Example Login',
    });

    for (const [option, value, message] of [
      ['--issuer', 'http://login.example.com', 'https URL'],
      ['--scopes', 'email profile', 'openid'],
      ['--domains', 'not a domain', 'domain name'],
    ] as const) {
      const refused = await admin(['sso', 'create', '--client-id', 'cli.fed', '--orgs', orgs, option, value]);
      expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining(message)]);
    }

    const unbound = await adminJson<{ organizationIds: string[] }>([
      'sso',
      'unbind',
      '--client-id',
      'cli.fed',
      '--org',
      other.orgId,
    ]);
    expect(unbound.organizationIds).toEqual([service.organizationId]);
    const last = await admin(['sso', 'unbind', '--client-id', 'cli.fed', '--org', service.organizationId]);
    expect([last.code, last.stderr]).toEqual([1, expect.stringContaining('delete the provider instead')]);

    await adminJson(['sso', 'delete', '--client-id', 'cli.fed']);
    const secrets = new FileSecretStore(join(service.dataDirectory, 'secrets'));
    expect(await secrets.get('sso/cli.fed/secret')).toBeUndefined();
    const afterDelete = await service.call<{ clientId: string }[]>('GET', '/idp/sso-providers', {
      token: await service.token(),
    });
    expect(afterDelete.body.map((provider) => provider.clientId)).not.toContain('cli.fed');
    const again = await admin(['sso', 'delete', '--client-id', 'cli.fed']);
    expect([again.code, again.stderr.trim()]).toEqual([1, 'error: SSO provider cli.fed not found']);
  });

  it('defines and assigns a plugin, publishes an agreement, defines a managed role', async () => {
    const definitions = join(service.dataDirectory, 'plugin.json');
    writeFileSync(
      definitions,
      JSON.stringify({
        permissionDefinitions: [
          { id: 'reports-view', module: 'REPORTS', actionName: 'VIEW', description: 'View' },
        ],
      }),
    );
    await adminJson(['plugin', 'define', '--id', 'reports', '--definitions', definitions]);
    await adminJson(['plugin', 'assign', '--org', service.organizationId, '--plugin', 'reports']);
    await adminJson(['plugin', 'assign', '--org', service.organizationId, '--plugin', 'reports']);
    // Recorded once (the second assignment changed nothing), naming the organization and the plugin.
    const assigned = await auditList(service.organizationId, '--target', 'reports');
    expect(assigned).toEqual([
      expect.objectContaining({
        action: 'organization.updated',
        actor: operator(),
        targets: [
          { type: 'organization', id: service.organizationId },
          { type: 'plugin', id: 'reports' },
        ],
      }),
    ]);
    const agreement = await adminJson<{ id: string }>([
      'agreement',
      'publish',
      '--url',
      'https://example.com/t',
    ]);
    await adminJson(['managed-role', 'define', '--id', 'auditor', '--permissions', 'USER.LIST,ROLES.LIST']);

    const token = await service.token();
    // (Another test of this file assigns a plugin of its own.)
    expect((await service.call('GET', '/idp/plugins', { token })).body).toEqual(
      expect.arrayContaining([{ id: 'reports' }]),
    );
    expect((await service.call<{ id: string }>('GET', '/idp/latestAgreement', { token })).body.id).toBe(
      agreement.id,
    );
    const managed = await service.call<{ id: string; permissions: string[] }>(
      'GET',
      '/idp/managedRoles/auditor',
      {
        token,
      },
    );
    expect(managed.body).toMatchObject({ id: 'auditor', permissions: ['ROLES.LIST', 'USER.LIST'] });
    const permissions = await adminJson<{ id: string }[]>(['permissions', 'list']);
    expect(permissions.map((p) => p.id)).toContain('API_CLIENTS.WRITE');
  });

  it('refuses plugin definitions it could not keep apart or store, and an id every object has', async () => {
    const file = (name: string, definitions: object[], description = 'd') => {
      const path = join(service.dataDirectory, `${name}.json`);
      writeFileSync(
        path,
        JSON.stringify({ permissionDefinitions: definitions.map((entry) => ({ description, ...entry })) }),
      );
      return path;
    };
    const view = { id: 'view', module: 'REPORTS', actionName: 'VIEW' };
    const exportAction = { id: 'export', module: 'REPORTS', actionName: 'EXPORT' };
    // Positive control: distinct ids and actions, a plain id.
    const fine = await admin([
      'plugin',
      'define',
      '--id',
      'distinct',
      '--definitions',
      file('fine', [view, exportAction]),
    ]);
    expect(fine.code, fine.stderr).toBe(0);
    const cases: [string[], string][] = [
      [
        ['--id', 'same-id', '--definitions', file('same-id', [view, { ...exportAction, id: 'view' }])],
        '--definitions (permissionDefinitions.1): id view is defined twice',
      ],
      [
        ['--id', 'same-action', '--definitions', file('same-action', [view, { ...view, id: 'view-2' }])],
        '--definitions (permissionDefinitions.1): module REPORTS and actionName VIEW is defined twice',
      ],
      [
        ['--id', 'constructor', '--definitions', file('prototype', [view])],
        '--id: Not allowed as a plugin id (a name every JavaScript object has)',
      ],
      [
        [
          '--id',
          'large',
          '--definitions',
          file(
            'large',
            Array.from({ length: 200 }, (_, index) => ({
              id: `a${index}`,
              module: 'M',
              actionName: `A${index}`,
            })),
            'x'.repeat(2000),
          ),
        ],
        "a plugin's must fit in 350000 (shorten the descriptions)",
      ],
    ];
    for (const [args, message] of cases) {
      const run = await admin(['plugin', 'define', ...args]);
      expect(run.code, args[1]).toBe(2);
      expect(run.stderr, args[1]).toContain(message);
    }
    // Nothing was written for any of them; the control was.
    expect(await getItem(keys.pluginDefinition('distinct'))).toBeDefined();
    for (const refused of ['same-id', 'same-action', 'constructor', 'large'])
      expect(await getItem(keys.pluginDefinition(refused)), refused).toBeUndefined();
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const cases: [string[], number, string][] = [
      [['client', 'delete', '--id', 'a', '--id', 'b'], 2, '--id is given more than once'],
      [['org', 'list', '--json', '--json'], 2, '--json is given more than once'],
      [['org', 'frobnicate'], 2, 'Unknown command "org frobnicate"'],
      [['org', 'create'], 2, '--name is required'],
      [
        ['org', 'create', '--name', 'X', '--rate', 'fast', '--burst', '1'],
        2,
        '--rate must be a whole number',
      ],
      [['org', 'create', '--name', 'X', '--mfa', '--org', 'y'], 2, 'org create does not take --org'],
      [
        ['org', 'update', '--id', 'no-such-org', '--mfa'],
        1,
        'Organization no-such-org not found\n  --id: No organization with this id exists ("no-such-org")',
      ],
      [['org', 'update', '--id', service.organizationId], 2, 'nothing to change'],
      [['org'], 2, 'org update --id ORG [--rate R --burst B] [--mfa | --no-mfa]'],
      [['client', 'create', '--org', 'no-such-org', '--name', 'X'], 1, 'Organization no-such-org not found'],
      [
        ['client', 'create', '--org', service.organizationId, '--name', 'X', '--permissions', 'USER.NOPE'],
        1,
        '--permissions.0: No permission with this id exists ("USER.NOPE")',
      ],
      [['plugin', 'assign', '--org', service.organizationId, '--plugin', 'undefined-plugin'], 1, 'not found'],
      [['agreement', 'publish', '--url', 'not a url'], 2, '--url'],
      [['managed-role', 'define', '--id', 'administrator', '--all-permissions'], 1, 'built-in managed role'],
      [
        ['sso', 'create', '--client-id', 'new.sso', '--orgs', service.organizationId],
        1,
        'needs its client secret',
      ],
      [['org', 'list', '--table', 'idp'], 2, '--endpoint is for the local DynamoDB only'],
      [['client', 'rotate', '--id', 'x', '--grace-seconds', '99999999999'], 2, '--grace-seconds must be'],
      [['sso', 'create', '--client-id', 'c', '--orgs', ','], 2, '--orgs names no organization'],
      [
        ['sso', 'create', '--client-id', 'c', '--orgs', 'o', '--expires', '99999999999999999999'],
        2,
        '--expires',
      ],
      [['sso', 'create', 'typed-secret', '--client-id', 'c'], 2, 'takes options only, not 1 more word(s)'],
      [
        ['audit', 'settings', '--org', service.organizationId, '--retention-days', '0'],
        2,
        '--retention-days must be a whole number from 1 to 3650, got "0"',
      ],
      [
        ['audit', 'settings', '--org', service.organizationId, '--retention-days', '3651'],
        2,
        '--retention-days must be a whole number from 1 to 3650, got "3651"',
      ],
      [
        ['audit', 'settings', '--org', 'no-such-org', '--shards', '2'],
        1,
        'Organization no-such-org not found',
      ],
      [
        ['audit', 'list', '--org', service.organizationId, '--action', 'user.nothing'],
        2,
        '--action: An action of the audit log, or a prefix of one ending in "."',
      ],
      [['audit', 'list', '--org', service.organizationId, '--since', 'last week'], 2, '--since must be'],
      [['audit', 'list', '--org', 'no-such-org'], 1, 'Organization no-such-org not found'],
    ];
    const runs = await Promise.all(cases.map(([args]) => admin(args)));
    runs.forEach((run, index) => {
      const [args, code, message] = cases[index] as (typeof cases)[number];
      expect(run.code, args.join(' ')).toBe(code);
      expect(run.stderr, args.join(' ')).toContain(message);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr).not.toContain('typed-secret');
    });
  });

  it('audit settings shows, changes and records retention and shards; shards only grow', async () => {
    const org = await service.freshOrganization();
    const shown = await admin(['audit', 'settings', '--org', org.orgId]);
    expect([shown.code, shown.stderr]).toEqual([0, '']);
    expect(shown.stdout).toContain('records kept 90 day(s), spread over 1 shard(s)');

    const changed = await adminJson([
      'audit',
      'settings',
      '--org',
      org.orgId,
      '--retention-days',
      '30',
      '--shards',
      '2',
    ]);
    expect(changed).toEqual({ organizationId: org.orgId, retentionDays: 30, shards: 2 });
    expect((await getItem(keys.organization(org.orgId)))?.audit).toEqual({ retentionDays: 30, shards: 2 });

    // Positive control: growing is taken; shrinking is refused, naming --shards, and changes nothing.
    expect(await adminJson(['audit', 'settings', '--org', org.orgId, '--shards', '3'])).toMatchObject({
      shards: 3,
    });
    const shrink = await admin(['audit', 'settings', '--org', org.orgId, '--shards', '2']);
    expect([shrink.code, shrink.stdout]).toEqual([1, '']);
    expect(shrink.stderr).toContain('error: Audit shards only grow');
    expect(shrink.stderr).toContain('  --shards: At least 3, the current number (2)');
    expect((await getItem(keys.organization(org.orgId)))?.audit).toEqual({ retentionDays: 30, shards: 3 });
    // The same settings again change nothing and record nothing.
    await adminJson(['audit', 'settings', '--org', org.orgId, '--retention-days', '30']);

    const records = await auditList(org.orgId, '--action', 'organization.updated');
    expect(records.map((record) => record.changes)).toEqual([
      { 'audit.shards': { from: 2, to: 3 } },
      { 'audit.retentionDays': { from: 90, to: 30 }, 'audit.shards': { from: 1, to: 2 } },
    ]);
    for (const record of records)
      expect(record).toMatchObject({ actor: operator(), targets: [{ type: 'organization', id: org.orgId }] });
  });

  it("audit list reads the records newest first with the API's filters, as a table or JSON lines", async () => {
    const org = await service.freshOrganization();
    const client = await adminJson<CreatedClient>([
      'client',
      'create',
      '--org',
      org.orgId,
      '--name',
      'Listed',
    ]);
    await adminJson(['client', 'rotate', '--id', client.id]);
    await service.createUser({ as: org, email: uniqueEmail('listed') });

    const all = await auditList(org.orgId);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect([...all].sort((a, b) => (a.id < b.id ? 1 : -1))).toEqual(all);
    const [created, rotated] = await auditList(org.orgId, '--target', client.id, '--action', 'client.');
    expect([created?.action, rotated?.action]).toEqual(['client.secret.rotated', 'client.created']);
    expect(created?.actor).toEqual(operator());
    expect(JSON.stringify(all)).not.toContain(client.clientSecret);
    expect((await auditList(org.orgId, '--actor', org.principalId)).map((record) => record.action)).toEqual([
      'user.created',
    ]);
    expect(await auditList(org.orgId, '--outcome', 'denied')).toEqual([]);
    const now = Date.now();
    expect(await auditList(org.orgId, '--since', new Date(now + 60_000).toISOString())).toEqual([]);
    expect(await auditList(org.orgId, '--until', String((all.at(-1) as AuditRecord).time))).toEqual([]);
    expect(await auditList(org.orgId, '--limit', '2')).toEqual(all.slice(0, 2));

    const table = await admin(['audit', 'list', '--org', org.orgId, '--action', 'client.', '--limit', '1']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    const [headline, header, row, more] = table.stdout.trimEnd().split('\n');
    expect(headline).toBe(`1 audit record(s) of organization ${org.orgId}, newest first`);
    expect(header).toMatch(/^ {2}TIME +ACTION +OUTCOME +ACTOR +TARGETS$/);
    expect(row).toContain(
      `client.secret.rotated  success  operator:${operator().id}  client:${client.id} (Listed)`,
    );
    expect(more).toContain('more may follow');
    expect(table.stdout).not.toContain(client.clientSecret);
  });
  it('console enable registers the console application again over one deleted before the service managed it', async () => {
    const org = await service.freshOrganization();
    expect((await admin(['console', 'enable', '--org', org.orgId])).code).toBe(0);
    // As an earlier version's DELETE /idp/clients/{id} left it: a tombstone under the fixed id.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiClient(`console-${org.orgId}`),
        UpdateExpression: 'SET deleted = :true',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
    const gone = await service.call('GET', `/idp/clients/console-${org.orgId}`, { token: org.token });
    expect(gone.status).toBe(404);
    const enabled = await adminJson<{ created: boolean }>(['console', 'enable', '--org', org.orgId]);
    expect(enabled.created).toBe(true);
    const back = await service.call('GET', `/idp/clients/console-${org.orgId}`, { token: org.token });
    expect(back.status).toBe(200);
  });

  it("console enable registers the organization's public console application once", async () => {
    const org = await service.freshOrganization();
    const address = `${service.baseUrl}/console/${org.orgId}`;
    const enabled = await adminJson<{ clientId: string; created: boolean; address: string }>([
      'console',
      'enable',
      '--org',
      org.orgId,
    ]);
    expect(enabled).toEqual({
      organizationId: org.orgId,
      clientId: `console-${org.orgId}`,
      created: true,
      restored: [],
      address,
    });
    const again = await admin(['console', 'enable', '--org', org.orgId]);
    expect([again.code, again.stdout]).toEqual([
      0,
      `The console of ${org.orgId} was enabled already\n  open ${address}\n`,
    ]);
    const application = await service.call<Record<string, unknown>>(
      'GET',
      `/idp/clients/console-${org.orgId}`,
      {
        token: org.token,
      },
    );
    expect(application.body).toMatchObject({
      flowType: 'authorization_code',
      tokenEndpointAuthMethod: 'none',
      redirectUris: [address],
      postLogoutRedirectUris: [address],
      roles: [],
    });
    expect((await admin(['console', 'enable', '--org', 'no-such-org'])).code).not.toBe(0);
  });

  it('scim token create prints the value once; list shows no value; revoke refuses it at once; all recorded by the operator', async () => {
    const org = await service.freshOrganization();
    const created = await adminJson<{ id: string; name: string; token: string; organizationId: string }>([
      'scim',
      'token',
      'create',
      '--org',
      org.orgId,
      '--name',
      'Okta',
    ]);
    expect(created).toMatchObject({ organizationId: org.orgId, name: 'Okta', createdBy: 'idp-admin' });
    expect(await scimTokenOf(created.token)).toEqual({ organizationId: org.orgId, tokenId: created.id });

    const readable = await admin(['scim', 'token', 'create', '--org', org.orgId, '--name', 'Entra ID']);
    expect([readable.code, readable.stderr]).toEqual([0, '']);
    const value = /token: (\S+)\n/.exec(readable.stdout)?.[1] as string;
    expect(await scimTokenOf(value)).toMatchObject({ organizationId: org.orgId });
    expect(readable.stdout.split(value)).toHaveLength(2);

    const listed = await admin(['scim', 'token', 'list', '--org', org.orgId]);
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    expect(listed.stdout).toContain(`2 SCIM token(s) of organization ${org.orgId}, newest first`);
    expect(listed.stdout).toContain(`${created.id}  created `);
    const json = await adminJson<{ id: string }[]>(['scim', 'token', 'list', '--org', org.orgId]);
    expect(json.map((token) => token.id)).toContain(created.id);
    // The API lists what the CLI made.
    const api = await service.call<{ id: string }[]>('GET', '/idp/scimTokens', { token: org.token });
    expect(api.body.map((token) => token.id).sort()).toEqual(json.map((token) => token.id).sort());
    for (const shown of [listed.stdout, JSON.stringify(json), JSON.stringify(api.body)]) {
      expect(shown).not.toContain(created.token);
      expect(shown).not.toContain(value);
    }

    const revoked = await admin(['scim', 'token', 'revoke', '--org', org.orgId, created.id]);
    expect([revoked.code, revoked.stderr]).toEqual([0, '']);
    expect(revoked.stdout).toContain(`Revoked SCIM token ${created.id} of organization ${org.orgId}`);
    expect(await scimTokenOf(created.token)).toBeUndefined();
    const again = await admin(['scim', 'token', 'revoke', '--org', org.orgId, created.id]);
    expect([again.code, again.stdout]).toEqual([1, '']);
    expect(again.stderr).toBe(`error: SCIM token ${created.id} not found\n`);
    // Another organization's token id is as unknown, and the token keeps working.
    const other = await service.freshOrganization();
    const theirs = await adminJson<{ id: string; token: string }>([
      'scim',
      'token',
      'create',
      '--org',
      other.orgId,
      '--name',
      'Theirs',
    ]);
    expect((await admin(['scim', 'token', 'revoke', '--org', org.orgId, theirs.id])).code).toBe(1);
    expect(await scimTokenOf(theirs.token)).toBeDefined();
    const unknownOrg = await admin(['scim', 'token', 'create', '--org', 'no-such-org', '--name', 'Okta']);
    expect([unknownOrg.code, unknownOrg.stderr]).toEqual([1, 'error: Organization no-such-org not found\n']);

    const records = await auditList(org.orgId, '--action', 'scimToken.');
    expect(records.map((record) => [record.action, record.targets[0]?.name])).toEqual([
      ['scimToken.revoked', 'Okta'],
      ['scimToken.created', 'Entra ID'],
      ['scimToken.created', 'Okta'],
    ]);
    for (const record of records) expect(record.actor).toEqual(operator());
    expect(JSON.stringify(records)).not.toContain(created.token);
  });

  it('audit digest signs an hour of records and audit verify checks them, exit 1 naming a record edited in the table', async () => {
    const org = await service.freshOrganization();
    // A record of the hour that ended: the hour under way has no digest yet.
    const ended = hourOf(Date.now()) - HOUR_MILLIS;
    await writeAuditRecord(
      { organizationId: org.orgId, action: 'user.created', targets: [{ type: 'user', id: 'digested' }] },
      ended + 10,
    );
    const underWay = await admin(['audit', 'digest', '--org', org.orgId, '--hour', new Date().toISOString()]);
    expect([underWay.code, underWay.stderr]).toEqual([
      2,
      expect.stringContaining('--hour must be in an hour that has ended'),
    ]);
    const [record] = await auditList(org.orgId, '--action', 'user.created');
    const hour = new Date(ended).toISOString();
    const digest = await admin(['audit', 'digest', '--org', org.orgId, '--hour', hour]);
    expect([digest.code, digest.stderr]).toEqual([0, '']);
    expect(digest.stdout).toMatch(/Digest of .* written for organization .*: \d+ record\(s\)/);
    // Positive control: the untouched log verifies.
    const verified = await admin(['audit', 'verify', '--org', org.orgId]);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toMatch(/matches its 1 digest\(s\)/);

    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.auditRecord(org.orgId, (record as AuditRecord).id),
        UpdateExpression: 'SET #record = :record',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':record': JSON.stringify({ ...record, outcome: 'denied' }) },
      }),
    );
    const refused = await admin(['audit', 'verify', '--org', org.orgId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`record ${(record as AuditRecord).id} changed`);
  });

  it("user sso-links shows a user's links and user unlink-sso removes one, recorded by the operator", async () => {
    const org = await service.freshOrganization();
    const userId = await service.createUser({ as: org, email: uniqueEmail('linked') });
    const user = await getUser(org.orgId, userId, true);
    await linkSsoSubject(user as NonNullable<typeof user>, {
      clientId: 'corp-login',
      issuer: 'https://login.corp.example',
      subject: 'linked-at-corp',
    });
    const listed = await jsonLines<{ clientId: string; subject: string }>([
      'user',
      'sso-links',
      '--org',
      org.orgId,
      '--user',
      userId,
    ]);
    expect(listed).toEqual([expect.objectContaining({ clientId: 'corp-login', subject: 'linked-at-corp' })]);
    const unlink = (orgId: string) =>
      admin(['user', 'unlink-sso', '--org', orgId, '--user', userId, '--provider', 'corp-login']);
    // Another organization's user is as unknown: nothing is unlinked.
    const other = await service.freshOrganization();
    const foreign = await unlink(other.orgId);
    expect([foreign.code, foreign.stderr]).toEqual([1, `error: User ${userId} not found\n`]);

    const unlinked = await unlink(org.orgId);
    expect([unlinked.code, unlinked.stderr]).toEqual([0, '']);
    expect(unlinked.stdout).toContain(`Unlinked user ${userId}`);
    const api = await service.call('GET', `/idp/users/${userId}/sso-links`, { token: org.token });
    expect(api.body).toEqual([]);
    const again = await unlink(org.orgId);
    expect([again.code, again.stderr]).toEqual([1, 'error: SSO link corp-login not found\n']);
    const records = await auditList(org.orgId, '--action', 'ssoLink.removed');
    expect(records.map((record) => [record.actor, record.targets[1]?.name])).toEqual([
      [operator(), 'linked-at-corp'],
    ]);
  });

  it('user list lists or searches users, as a table or JSON lines, refusing what the API refuses', async () => {
    const org = await service.freshOrganization();
    const ids = [];
    for (const name of ['Zoe Cli', 'Zack Cli', 'Amy Cli'])
      ids.push(
        await service.createUser({
          as: org,
          name,
          email: `${name.split(' ')[0]?.toLowerCase()}.cli@example.com`,
        }),
      );
    await service.call('PUT', `/idp/users/${ids[1]}/setUserStatus`, {
      token: org.token,
      body: { userStatus: 'INACTIVE' },
    });
    type Listed = { id: string; email: string; name: string; status: string; userType: string };
    const list = async (...options: string[]) =>
      (await jsonLines<Listed>(['user', 'list', '--org', org.orgId, ...options])).map((user) => user.name);
    expect(await list()).toEqual(['Zoe Cli', 'Amy Cli']);
    expect(await list('--status', 'INACTIVE')).toEqual(['Zack Cli']);
    expect(await list('--name-prefix', 'z')).toEqual(['Zack Cli', 'Zoe Cli']);
    expect(await list('--name-prefix', 'Z', '--status', 'ACTIVE')).toEqual(['Zoe Cli']);
    expect(await list('--email', 'AMY.CLI@example.com')).toEqual(['Amy Cli']);
    expect(await list('--email-prefix', 'z', '--limit', '1')).toEqual(['Zack Cli']);

    const table = await admin(['user', 'list', '--org', org.orgId, '--name-prefix', 'zo']);
    expect([table.code, table.stderr]).toEqual([0, '']);
    const [headline, header, row] = table.stdout.trimEnd().split('\n');
    expect(headline).toBe(`1 user(s) of organization ${org.orgId}`);
    expect(header).toMatch(/^ {2}ID +STATUS +TYPE +EMAIL +NAME$/);
    expect(row).toMatch(new RegExp(`^  ${ids[0]}  ACTIVE +STANDARD  zoe\\.cli@example\\.com  Zoe Cli$`));

    for (const [options, message] of [
      [['--email', 'a@b.example', '--name-prefix', 'a'], '--name-prefix'],
      [['--status', 'GONE'], '--status'],
      [['--type', 'STANDARD'], '--type filters a search'],
      [['--group', 'no-such-group'], 'User group'],
    ] as const) {
      const refused = await admin(['user', 'list', '--org', org.orgId, ...options]);
      expect(refused.code, options.join(' ')).not.toBe(0);
      expect(refused.stderr, options.join(' ')).toContain(message);
    }
  });
});
