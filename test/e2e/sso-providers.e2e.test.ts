import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../shared/audit/record.js';
import { FileSecretStore } from '../../shared/auth/file-secret-store.js';
import { ssoSecretName } from '../../shared/auth/secret-store.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { configureSsoProvider, getSsoProvider } from '../../shared/store/sso-provider-repository.js';
import type { ApiError, ApiSsoProvider } from '../support/service.js';
import {
  errorFields,
  permissionsWithout,
  storedAuditText,
  useFixture,
  useService,
} from '../support/service.js';

// The logs test reads DEBUG lines; Powertools Logger returns to its starting level at every
// invocation, so the level is set before it is created.
vi.hoisted(() => {
  process.env.IDP_LOG_LEVEL = 'DEBUG';
});

/** SSO providers over HTTP, with the local secret store the service itself writes to. */
const service = useService();
const foreign = useFixture(() => service.freshOrganization());
let secrets: FileSecretStore;

const HINT = 1_900_000_000_000;

beforeAll(async () => {
  secrets = new FileSecretStore(join(service.dataDirectory, 'secrets'));
  await Promise.all([
    configureSsoProvider(
      {
        clientId: 'shared-idp',
        organizationIds: [service.organizationId, foreign.orgId],
        clientSecret: 'initial-secret',
        clientSecretExpirationDate: HINT,
      },
      'operator',
    ),
    configureSsoProvider(
      { clientId: 'own-idp', organizationIds: [service.organizationId], clientSecret: 'own-secret' },
      'operator',
    ),
    configureSsoProvider(
      { clientId: 'foreign-idp', organizationIds: [foreign.orgId], clientSecret: 'foreign-secret' },
      'operator',
    ),
  ]);
});

/** The value of the provider's client secret in use (the one its item names), if any. */
const inUse = async (clientId: string) => {
  const provider = await getSsoProvider(clientId);
  return provider && secrets.get(ssoSecretName(clientId, provider.secretVersion));
};

/** How many values of the provider's client secret are stored. */
const storedValues = async (clientId: string) =>
  (await readdir(join(service.dataDirectory, 'secrets'))).filter((file) =>
    file.startsWith(encodeURIComponent(`sso/${clientId}/`)),
  ).length;

const list = async (caller: string) =>
  (
    await service.call<ApiSsoProvider[]>('GET', '/idp/sso-providers', {
      token: caller,
    })
  ).body;

const update = (clientId: string, body: unknown, caller = service.admin.token) =>
  service.call<ApiError | undefined>('POST', `/idp/sso-providers/${clientId}`, { token: caller, body });

/** The records of a provider's secret updates in the caller's organization, newest first. */
const secretUpdates = async (clientId: string, caller = service.admin.token) =>
  (
    await service.call<AuditRecord[]>(
      'GET',
      `/idp/auditEvents?action=sso.provider.secret.updated&targetId=${clientId}&outcome=success`,
      { token: caller },
    )
  ).body;

describe('GET /sso-providers', () => {
  it("lists the providers serving the caller's organization, a shared one in each, never a secret", async () => {
    const ours = await list(service.admin.token);
    expect(ours).toEqual([
      { clientId: 'own-idp', clientSecretExpirationDate: 0 },
      { clientId: 'shared-idp', clientSecretExpirationDate: HINT },
    ]);
    expect(await list(foreign.token)).toEqual([
      { clientId: 'foreign-idp', clientSecretExpirationDate: 0 },
      { clientId: 'shared-idp', clientSecretExpirationDate: HINT },
    ]);
  });

  it('an organization without providers gets an empty list', async () => {
    const lonely = await service.freshOrganization();
    expect(await list(lonely.token)).toEqual([]);
  });

  it('403 without SSO.ADMIN', async () => {
    const withoutSso = (await service.callerWith(permissionsWithout('SSO.ADMIN'))).token;
    const response = await service.call('GET', '/idp/sso-providers', { token: withoutSso });
    expect(response.status).toBe(403);
  });
});

describe('POST /sso-providers/{clientId}', () => {
  it('stores the secret in the secret store for every organization; the hint changes for all', async () => {
    const [ours, theirs] = await Promise.all([
      secretUpdates('shared-idp'),
      secretUpdates('shared-idp', foreign.token),
    ]);
    const response = await update('shared-idp', {
      clientSecret: 'rotated-secret',
      clientSecretExpirationDate: HINT + 1,
    });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(await inUse('shared-idp')).toBe('rotated-secret');
    for (const caller of [service.admin.token, foreign.token]) {
      expect((await list(caller)).find((p) => p.clientId === 'shared-idp')?.clientSecretExpirationDate).toBe(
        HINT + 1,
      );
    }
    // One record, in the caller's organization only: that the secret changed, never the secret.
    const recorded = await secretUpdates('shared-idp');
    expect(recorded).toHaveLength(ours.length + 1);
    expect(recorded[0]).toMatchObject({
      organizationId: service.organizationId,
      actor: { type: 'client', id: service.admin.principalId },
      targets: [{ type: 'ssoProvider', id: 'shared-idp' }],
      changes: { clientSecret: 'changed', clientSecretExpirationDate: 'changed' },
    });
    expect(await secretUpdates('shared-idp', foreign.token)).toHaveLength(theirs.length);
    expect(await storedAuditText(service.organizationId)).toContain('shared-idp');
    expect(await storedAuditText(service.organizationId)).not.toContain('rotated-secret');
  });

  it('keeps the previous hint when the date is omitted', async () => {
    expect((await update('shared-idp', { clientSecret: 'without-date' })).status).toBe(204);
    expect(await inUse('shared-idp')).toBe('without-date');
    expect(
      (await list(service.admin.token)).find((p) => p.clientId === 'shared-idp')?.clientSecretExpirationDate,
    ).toBe(HINT + 1);
  });

  it("404 for a provider of another organization or none, and the other's secret is untouched", async () => {
    for (const clientId of ['foreign-idp', 'no-such-idp']) {
      const response = await update(clientId, { clientSecret: 'hijack', clientSecretExpirationDate: 1 });
      expect([response.status, response.body?.message]).toEqual([404, 'SSO provider not found']);
    }
    expect(await inUse('foreign-idp')).toBe('foreign-secret');
    expect(await inUse('no-such-idp')).toBeUndefined();
  });

  it('400 for an empty or blank secret and a non-numeric date, never echoing the secret', async () => {
    const cases: [unknown, string][] = [
      [{ clientSecret: '', clientSecretExpirationDate: HINT }, 'body.clientSecret'],
      [{ clientSecret: '   ', clientSecretExpirationDate: HINT }, 'body.clientSecret'],
      [{ clientSecretExpirationDate: HINT }, 'body.clientSecret'],
      [{ clientSecret: 'fine', clientSecretExpirationDate: '2030-01-01' }, 'body.clientSecretExpirationDate'],
      [
        { clientSecret: 'fine', clientSecretExpirationDate: '1900000000000' },
        'body.clientSecretExpirationDate',
      ],
      [{ clientSecret: 'fine', clientSecretExpirationDate: -1 }, 'body.clientSecretExpirationDate'],
      [{ clientSecret: 'fine', clientSecretExpirationDate: 1e200 }, 'body.clientSecretExpirationDate'],
      [{ clientSecret: 'fine', unexpected: true }, 'body.unexpected'],
    ];
    for (const [body, field] of cases) {
      const response = await update('own-idp', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(errorFields(response)).toEqual([field]);
    }
    const numericSecret = await update('own-idp', { clientSecret: 424242, clientSecretExpirationDate: 1 });
    expect(numericSecret.status).toBe(400);
    expect(JSON.stringify(numericSecret.body)).not.toContain('424242');
    const misspelt = await update('own-idp', { clientSecret: 'fine', client_secret: 'misspelt-secret' });
    expect([misspelt.status, errorFields(misspelt)]).toEqual([400, ['body.client_secret']]);
    expect(JSON.stringify(misspelt.body)).not.toContain('misspelt-secret');
    // The body is a secret: nothing refused in it is repeated, under a name no rule knows (a typo)
    // or one level too deep.
    for (const [body, field] of [
      [{ clientSecret: 'fine', clientSecrt: 'typo-secret' }, 'body.clientSecrt'],
      [{ provider: { clientSecret: 'wrapped-secret' } }, 'body.provider'],
    ] as const) {
      const refused = await update('own-idp', body);
      expect(refused.status).toBe(400);
      expect(errorFields(refused)).toContain(field);
      expect(JSON.stringify(refused.body)).not.toMatch(/typo-secret|wrapped-secret/);
    }
    expect(await inUse('own-idp')).toBe('own-secret');
  });

  it('concurrent updates all succeed; the secret is one of theirs and the hint whole milliseconds', async () => {
    const before = await secretUpdates('own-idp');
    const secrets10 = Array.from({ length: 10 }, (_, index) => `concurrent-${index}`);
    const responses = await Promise.all(
      secrets10.map((clientSecret) =>
        update('own-idp', { clientSecret, clientSecretExpirationDate: 1234.4 }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(secrets10.map(() => 204));
    expect(secrets10).toContain(await inUse('own-idp'));
    // Each replaced value is deleted once the update that replaced it committed.
    expect(await storedValues('own-idp')).toBe(1);
    expect(
      (await list(service.admin.token)).find((p) => p.clientId === 'own-idp')?.clientSecretExpirationDate,
    ).toBe(1234);
    // Each update retried its transaction until it committed, with one record.
    expect(await secretUpdates('own-idp')).toHaveLength(before.length + 10);
    await update('own-idp', { clientSecret: 'own-secret' });
  });

  it('400 for a client id that cannot name a provider', async () => {
    const response = await update('bad:id', { clientSecret: 'x' });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.clientId']);
  });

  it('403 without SSO.ADMIN', async () => {
    const withoutSso = (await service.callerWith(permissionsWithout('SSO.ADMIN'))).token;
    expect((await update('own-idp', { clientSecret: 'nope' }, withoutSso)).status).toBe(403);
    expect(await inUse('own-idp')).toBe('own-secret');
  });

  it('never writes the secret to the logs, even at DEBUG', async () => {
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const admin = (await service.callerWith(ALL_PERMISSION_IDS)).token;
      expect((await update('own-idp', { clientSecret: 'do-not-log-me' }, admin)).status).toBe(204);
      expect((await update('own-idp', { clientSecret: 'do-not-log-me', extra: 1 }, admin)).status).toBe(400);
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    expect(written.join('')).toContain('/idp/sso-providers/{clientId}');
    expect(written.join('')).not.toContain('do-not-log-me');
  });
});
