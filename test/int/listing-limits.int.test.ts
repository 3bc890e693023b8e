import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Conflict, PreconditionFailed } from '../../shared/domain/errors.js';
import {
  MAX_MANAGED_ROLES,
  MAX_POLICIES_PER_ORGANIZATION,
  MAX_SSO_PROVIDERS_PER_ORGANIZATION,
} from '../../shared/domain/limits.js';
import { batchPut } from '../../shared/store/batch.js';
import {
  defineManagedRole,
  listManagedRoles,
  seedSystemData,
} from '../../shared/store/catalogue-repository.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { ManagedRoleEntity } from '../../shared/store/entities.js';
import { keys } from '../../shared/store/keys.js';
import { archivePolicy, createPolicy, listPolicies } from '../../shared/store/policy-repository.js';
import { SsoProviderBindingEntity } from '../../shared/store/sso-entities.js';
import { configureSsoProvider, listSsoProviders } from '../../shared/store/sso-provider-repository.js';
import { useFakeSecretsManager } from '../support/fake-secrets-manager.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/** Listings the spec does not page are bounded by what an organization may hold (shared/domain/limits.ts). */

useDatabase();

// SSO client secrets go to a Secrets Manager stand-in.
useFakeSecretsManager();

describe('policies of an organization', () => {
  /** As if the organization already had `count` live policies (creating a thousand would be slow). */
  const pretendLivePolicies = (orgId: string, count: number) =>
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(orgId),
        UpdateExpression: 'SET livePolicies = :count',
        ExpressionAttributeValues: { ':count': count },
      }),
    );

  const newPolicy = (organizationId: string, name: string) =>
    createPolicy({ organizationId, name, createdBy: 'test' });

  it('are at most the limit while live: one more is a conflict that writes nothing; archiving makes room', async () => {
    const { id: orgId } = await createTestOrganization();
    const kept = await newPolicy(orgId, 'Kept');
    await pretendLivePolicies(orgId, MAX_POLICIES_PER_ORGANIZATION - 1);
    const last = await newPolicy(orgId, 'Last');

    const refused = newPolicy(orgId, 'One too many');
    await expect(refused).rejects.toThrow(Conflict);
    await expect(refused).rejects.toThrow(`at most ${MAX_POLICIES_PER_ORGANIZATION} policies`);
    expect((await listPolicies(orgId)).map((policy) => policy.name)).toEqual(['Kept', 'Last']);
    // Its name was not taken either.
    await archivePolicy(orgId, kept.id);
    expect((await newPolicy(orgId, 'One too many')).name).toBe('One too many');
    await expect(newPolicy(orgId, 'Another')).rejects.toThrow(Conflict);
    expect(last.id).not.toBe(kept.id);
  });

  it('counts from nothing in an organization created before the count existed', async () => {
    const { id: orgId } = await createTestOrganization();
    await expect(newPolicy(orgId, 'First')).resolves.toMatchObject({ name: 'First' });
  });
});

describe('SSO providers of an organization', () => {
  /** Binds `count` providers to the organization directly (the table as if an operator had). */
  const bindProviders = (orgId: string, count: number) =>
    batchPut(
      Array.from({ length: count }, (_, index) => {
        const clientId = `bound-${index}`;
        return SsoProviderBindingEntity.item(
          { organizationId: orgId, clientId },
          { clientId, clientSecretExpirationDate: 0 },
        );
      }),
    );

  const bind = (clientId: string, organizationIds: string[]) =>
    configureSsoProvider({ clientId, organizationIds, clientSecret: 'upstream-secret' }, 'test');

  it('are at most the limit: binding one more is refused for the full organization only', async () => {
    const [full, roomy] = await Promise.all([createTestOrganization(), createTestOrganization()]);
    await bindProviders(full.id, MAX_SSO_PROVIDERS_PER_ORGANIZATION - 1);
    await bind('the-last-one', [full.id]);

    const refused = bind('one-too-many', [roomy.id, full.id]);
    await expect(refused).rejects.toThrow(PreconditionFailed);
    await expect(refused).rejects.toThrow(`full: ${full.id}`);
    expect(await listSsoProviders(roomy.id)).toEqual([]);

    // A provider the organization already has is rebound: it takes no more room.
    await expect(bind('the-last-one', [full.id, roomy.id])).resolves.toMatchObject({
      organizationIds: [full.id, roomy.id].sort(),
    });
    expect(await listSsoProviders(full.id)).toHaveLength(MAX_SSO_PROVIDERS_PER_ORGANIZATION);
  });

  it('serve a domain one each per organization: a second provider for a domain another serves there is refused', async () => {
    const [shared, other] = await Promise.all([createTestOrganization(), createTestOrganization()]);
    const serving = (clientId: string, organizationIds: string[], emailDomains: string[]) =>
      configureSsoProvider(
        {
          clientId,
          organizationIds,
          clientSecret: 'upstream-secret',
          issuer: 'https://login.example',
          emailDomains,
        },
        'test',
      );
    await serving(`corp-${shared.id}`, [shared.id], ['corp.example', 'corp.test']);
    // Positive controls: another domain beside it, and the same domain in another organization.
    await expect(serving(`partner-${shared.id}`, [shared.id], ['partner.example'])).resolves.toBeDefined();
    await expect(serving(`elsewhere-${other.id}`, [other.id], ['corp.example'])).resolves.toBeDefined();
    // The same domain (in another case) beside it in the same organization: both would refuse its
    // people, and nobody of it could sign in.
    const refused = serving(`second-${shared.id}`, [other.id, shared.id], ['CORP.example']);
    await expect(refused).rejects.toThrow(PreconditionFailed);
    await expect(refused).rejects.toThrow('corp.example is served by the SSO provider');
    expect((await listSsoProviders(shared.id)).map((provider) => provider.clientId).sort()).toEqual(
      [`corp-${shared.id}`, `partner-${shared.id}`].sort(),
    );
    // Nor may the partner's provider take it over by a change of its domains.
    await expect(serving(`partner-${shared.id}`, [shared.id], ['corp.test'])).rejects.toThrow(
      PreconditionFailed,
    );
  });
});

describe('managed roles', () => {
  it('are at most the limit: a new one beyond is refused, an existing one can be redefined', async () => {
    await seedSystemData();
    const room = MAX_MANAGED_ROLES - (await listManagedRoles()).length;
    await batchPut(
      Array.from({ length: room - 1 }, (_, index) =>
        ManagedRoleEntity.item(
          { id: `seeded-${index}` },
          { id: `seeded-${index}`, permissions: [], pluginPermissions: {}, createdAt: 1, updatedAt: 1 },
        ),
      ),
    );
    await defineManagedRole('the-last-one', ['USER.LIST']);

    const refused = defineManagedRole('one-too-many', ['USER.LIST']);
    await expect(refused).rejects.toThrow(PreconditionFailed);
    await expect(refused).rejects.toThrow(`at most ${MAX_MANAGED_ROLES} managed roles`);
    await expect(defineManagedRole('the-last-one', ['ROLES.LIST'])).resolves.toMatchObject({
      permissions: ['ROLES.LIST'],
    });
    expect(await listManagedRoles()).toHaveLength(MAX_MANAGED_ROLES);
  });
});
