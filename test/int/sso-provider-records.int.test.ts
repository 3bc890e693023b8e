import { beforeAll, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { queryAuditRecords } from '../../shared/store/audit-records.js';
import {
  configureSsoProvider,
  deleteSsoProvider,
  MAX_SSO_PROVIDER_ORGANIZATIONS,
  unbindSsoProvider,
} from '../../shared/store/sso-provider-repository.js';
import { useFakeSecretsManager } from '../support/fake-secrets-manager.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/**
 * The operator CLI's SSO provider commands (`sso create`, `unbind`, `delete`) leave a record in
 * each organization they touch, in the change's own transaction, naming only that organization's
 * side (docs/audit.md).
 */

useFakeSecretsManager();
useDatabase();

const OPERATOR = { actor: { type: 'operator' as const, id: 'alice' } };
const asOperator = <T>(work: () => Promise<T>) => withAuditScope(OPERATOR, work);

const newOrganizations = async (count: number) =>
  (await Promise.all(Array.from({ length: count }, () => createTestOrganization()))).map((org) => org.id);

const ssoRecords = async (orgId: string): Promise<AuditRecord[]> =>
  (await queryAuditRecords(orgId, { action: 'sso.' }, { limit: 100 })).records;

const onlyRecord = async (orgId: string) => {
  const records = await ssoRecords(orgId);
  expect(records).toHaveLength(1);
  return records[0] as AuditRecord;
};

let orgs: string[];
beforeAll(async () => {
  orgs = await newOrganizations(3);
});

it('records creating, rebinding, unbinding and deleting a provider in each organization touched', async () => {
  const [a, b, c] = orgs as [string, string, string];
  const clientId = `records-${Date.now()}`;
  await asOperator(() =>
    configureSsoProvider(
      {
        clientId,
        organizationIds: [a, b],
        clientSecret: 'first secret',
        issuer: 'https://login.example.com',
      },
      'alice',
    ),
  );
  const created = await onlyRecord(a);
  expect(created).toMatchObject({
    action: 'sso.provider.created',
    actor: { type: 'operator', id: 'alice' },
    targets: [{ type: 'ssoProvider', id: clientId }],
    changes: { clientSecret: 'changed', issuer: { to: 'https://login.example.com' } },
  });
  expect((await onlyRecord(b)).action).toBe('sso.provider.created');
  // A record names its own organization's side only: never another organization the provider serves.
  expect(JSON.stringify(created)).not.toContain(b);
  expect(JSON.stringify(created)).not.toContain('first secret');

  await asOperator(() =>
    configureSsoProvider({ clientId, organizationIds: [b, c], displayName: 'Example Login' }, 'alice'),
  );
  const [unbound] = await ssoRecords(a);
  expect(unbound).toMatchObject({ action: 'sso.provider.unbound', targets: [{ id: clientId }] });
  const [updated] = await ssoRecords(b);
  expect(updated).toMatchObject({
    action: 'sso.provider.updated',
    changes: { displayName: { to: 'Example Login' } },
  });
  expect(updated?.changes).not.toHaveProperty('clientSecret');
  expect(await onlyRecord(c)).toMatchObject({
    action: 'sso.provider.bound',
    targets: [{ name: 'Example Login' }],
  });

  // Rebinding to the same organizations with nothing changed records nothing.
  await asOperator(() => configureSsoProvider({ clientId, organizationIds: [b, c] }, 'alice'));
  expect(await ssoRecords(b)).toHaveLength(2);

  await asOperator(() => unbindSsoProvider(clientId, c, 'alice'));
  expect((await ssoRecords(c))[0]?.action).toBe('sso.provider.unbound');
  expect(await ssoRecords(b)).toHaveLength(2);

  await asOperator(() => deleteSsoProvider(clientId));
  expect((await ssoRecords(b))[0]).toMatchObject({ action: 'sso.provider.deleted', actor: { id: 'alice' } });
});

it(`moves a provider from ${MAX_SSO_PROVIDER_ORGANIZATIONS} organizations to ${MAX_SSO_PROVIDER_ORGANIZATIONS} others in one transaction, with every record`, async () => {
  const [first, second] = [
    await newOrganizations(MAX_SSO_PROVIDER_ORGANIZATIONS),
    await newOrganizations(MAX_SSO_PROVIDER_ORGANIZATIONS),
  ];
  const clientId = `largest-${Date.now()}`;
  await asOperator(() =>
    configureSsoProvider({ clientId, organizationIds: first, clientSecret: 'a secret' }, 'alice'),
  );
  // The largest change: every binding removed, every new one written, a record in all 48.
  await asOperator(() =>
    configureSsoProvider({ clientId, organizationIds: second, clientSecret: 'another secret' }, 'alice'),
  );
  const actions = await Promise.all(
    [...first, ...second].map(async (orgId) => (await ssoRecords(orgId))[0]?.action),
  );
  expect(actions).toEqual([
    ...first.map(() => 'sso.provider.unbound'),
    ...second.map(() => 'sso.provider.bound'),
  ]);
  await expect(
    asOperator(() =>
      configureSsoProvider({ clientId, organizationIds: [...second, first[0] as string] }, 'alice'),
    ),
  ).rejects.toThrow(`An SSO provider serves 1 to ${MAX_SSO_PROVIDER_ORGANIZATIONS} organizations`);
});
