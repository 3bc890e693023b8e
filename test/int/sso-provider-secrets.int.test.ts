import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ssoClientSecretOf } from '../../shared/auth/federation/client-secrets.js';
import { DomainError } from '../../shared/domain/errors.js';
import { toApiError } from '../../shared/http/error-mapping.js';
import { db } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { queryPartition } from '../../shared/store/query.js';
import {
  configureSsoProvider,
  deleteSsoProvider,
  getSsoProvider,
  listSsoProviders,
  type SsoProvider,
  updateSsoProviderSecret,
} from '../../shared/store/sso-provider-repository.js';
import { fileTable } from '../support/database.js';
import { useFakeSecretsManager } from '../support/fake-secrets-manager.js';
import { beforeTransaction } from '../support/interleave.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/** The SSO provider path with the deployed secret adapter: a Secrets Manager stand-in, DynamoDB Local. */
const secretsManager = useFakeSecretsManager();

let orgA: string;
let orgB: string;
let orgC: string;

useDatabase();

beforeAll(async () => {
  [orgA, orgB, orgC] = (await Promise.all([1, 2, 3].map(() => createTestOrganization()))).map(
    (org) => org.id,
  ) as [string, string, string];
});

beforeEach(() => secretsManager().reset());

const secretWrites = () =>
  secretsManager()
    .calls()
    .filter((call) => call.operation !== 'GetSecretValue')
    .map((call) => ({
      command: call.operation,
      name: call.input.SecretId ?? call.input.Name,
      value: call.input.SecretString,
    }));

/** The provider's stored secret values by name. */
const storedSecrets = (clientId: string) =>
  Object.fromEntries(
    [...secretsManager().secrets]
      .filter(([name]) => name.startsWith(`idp/sso/${clientId}/`))
      .map(([name, { value }]) => [name, value]),
  );

/** Everything the table holds about the provider and its organizations. */
const tableItems = async (clientId: string) =>
  JSON.stringify(
    await Promise.all([
      queryPartition(keys.ssoProvider(clientId).pk, undefined, { consistent: true }),
      ...[orgA, orgB, orgC].flatMap((org) => [
        queryPartition(keys.organizationPartition(org)),
        queryPartition(keys.ssoProviderBindingPartition(org)),
      ]),
    ]),
    (_key, value) => (value instanceof Set ? [...value] : value),
  );

const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 200,
    (error) => (error instanceof DomainError ? toApiError(error).status : Promise.reject(error)),
  );

describe('SSO provider secrets in Secrets Manager', () => {
  it('stores each value as a secret of its own, deletes the one replaced after the commit; the table never holds one', async () => {
    await configureSsoProvider(
      {
        clientId: 'acme.sso',
        organizationIds: [orgA, orgB],
        clientSecret: 'first-s3cret',
        clientSecretExpirationDate: 1_900_000_000_000,
      },
      'operator',
    );
    const first = (await getSsoProvider('acme.sso'))?.secretVersion;
    await updateSsoProviderSecret(orgB, 'acme.sso', { clientSecret: 'second-s3cret' }, 'admin-of-b');
    const second = (await getSsoProvider('acme.sso'))?.secretVersion;

    expect(first).toMatch(/^[0-9a-f]{24}$/);
    expect(second).toMatch(/^[0-9a-f]{24}$/);
    expect(secretWrites()).toEqual([
      { command: 'CreateSecret', name: `idp/sso/acme.sso/${first}/secret`, value: 'first-s3cret' },
      { command: 'CreateSecret', name: `idp/sso/acme.sso/${second}/secret`, value: 'second-s3cret' },
      { command: 'DeleteSecret', name: `idp/sso/acme.sso/${first}/secret`, value: undefined },
    ]);
    expect(storedSecrets('acme.sso')).toEqual({ [`idp/sso/acme.sso/${second}/secret`]: 'second-s3cret' });
    // Nothing reads a secret back.
    expect(secretsManager().calls('GetSecretValue')).toHaveLength(0);
    const stored = await tableItems('acme.sso');
    expect(stored).toContain('acme.sso');
    expect(stored).not.toContain('s3cret');

    // One configuration: both organizations see the kept hint.
    for (const org of [orgA, orgB]) {
      expect(await listSsoProviders(org)).toEqual([
        { clientId: 'acme.sso', clientSecretExpirationDate: 1_900_000_000_000, boundAt: expect.any(Number) },
      ]);
    }
    expect(await listSsoProviders(orgC)).toEqual([]);
  });

  it('leaves the secret in use untouched when the change is refused after the new value was stored', async () => {
    await configureSsoProvider(
      { clientId: 'raced', organizationIds: [orgA, orgB], clientSecret: 'kept-s3cret' },
      'operator',
    );
    // The positive control: the same update, nothing in between, replaces the value.
    await updateSsoProviderSecret(orgA, 'raced', { clientSecret: 'kept-s3cret' }, 'admin-of-a');
    const before = await getSsoProvider('raced');
    expect(storedSecrets('raced')).toEqual({
      [`idp/sso/raced/${before?.secretVersion}/secret`]: 'kept-s3cret',
    });
    // An operator moves the provider away from organization A just before its admin's update commits.
    const rebinding = beforeTransaction(
      (items) => JSON.stringify(items).includes('SSO#raced'),
      () => configureSsoProvider({ clientId: 'raced', organizationIds: [orgB] }, 'operator'),
    );
    try {
      expect(
        await statusOf(updateSsoProviderSecret(orgA, 'raced', { clientSecret: 'lost-s3cret' }, 'admin-of-a')),
      ).toBe(404);
    } finally {
      rebinding.stop();
    }
    expect(rebinding.ran).toBe(true);
    const after = await getSsoProvider('raced');
    expect(after?.organizationIds).toEqual([orgB]);
    expect(after?.secretVersion).toBe(before?.secretVersion);
    expect(storedSecrets('raced')).toEqual({
      [`idp/sso/raced/${before?.secretVersion}/secret`]: 'kept-s3cret',
    });
  });

  it('a rebind without a secret makes no provider when the provider is deleted meanwhile', async () => {
    await configureSsoProvider({ clientId: 'gone', organizationIds: [orgA], clientSecret: 'x' }, 'operator');
    // The positive control: the same rebind, nothing in between, keeps the secret in use.
    await configureSsoProvider({ clientId: 'gone', organizationIds: [orgA, orgB] }, 'operator');
    const deletion = beforeTransaction(
      (items) => JSON.stringify(items).includes('SSO#gone'),
      () => deleteSsoProvider('gone'),
    );
    try {
      await expect(
        configureSsoProvider({ clientId: 'gone', organizationIds: [orgA] }, 'operator'),
      ).rejects.toThrow('A new SSO provider needs its client secret');
    } finally {
      deletion.stop();
    }
    expect(deletion.ran).toBe(true);
    expect(await getSsoProvider('gone')).toBeUndefined();
    expect((await listSsoProviders(orgA)).map((provider) => provider.clientId)).not.toContain('gone');
  });

  it('deleting a provider deletes its secret in use', async () => {
    await configureSsoProvider(
      { clientId: 'leaving', organizationIds: [orgA], clientSecret: 'x' },
      'operator',
    );
    expect(Object.keys(storedSecrets('leaving'))).toHaveLength(1);
    await deleteSsoProvider('leaving');
    expect(await getSsoProvider('leaving')).toBeUndefined();
    expect(storedSecrets('leaving')).toEqual({});
  });

  it('replaces the secret of a provider stored before versions, and deletes it', async () => {
    await configureSsoProvider({ clientId: 'older', organizationIds: [orgA], clientSecret: 'x' }, 'operator');
    // As an earlier release left it: the secret under the provider's name alone, no version named.
    await db().send(
      new UpdateCommand({
        TableName: fileTable(),
        Key: keys.ssoProvider('older'),
        UpdateExpression: 'REMOVE secretVersion',
      }),
    );
    secretsManager().secrets.clear();
    secretsManager().secrets.set('idp/sso/older/secret', { value: 'older-s3cret' });
    const legacy = await getSsoProvider('older');
    expect(legacy?.secretVersion).toBeUndefined();
    expect(await ssoClientSecretOf(legacy as SsoProvider)).toBe('older-s3cret');

    await updateSsoProviderSecret(orgA, 'older', { clientSecret: 'newer-s3cret' }, 'admin');
    const updated = await getSsoProvider('older');
    expect(storedSecrets('older')).toEqual({
      [`idp/sso/older/${updated?.secretVersion}/secret`]: 'newer-s3cret',
    });
    expect(await ssoClientSecretOf(updated as SsoProvider)).toBe('newer-s3cret');
  });

  it('404 for an organization the provider does not serve, before any secret is written', async () => {
    await configureSsoProvider(
      { clientId: 'only-a', organizationIds: [orgA], clientSecret: 'x' },
      'operator',
    );
    secretsManager().forgetCalls();
    expect(await statusOf(updateSsoProviderSecret(orgC, 'only-a', { clientSecret: 'y' }, 'intruder'))).toBe(
      404,
    );
    expect(await statusOf(updateSsoProviderSecret(orgA, 'no-such', { clientSecret: 'y' }, 'admin'))).toBe(
      404,
    );
    expect(secretWrites()).toEqual([]);
  });

  it('a Secrets Manager failure leaves the table as it was', async () => {
    await configureSsoProvider(
      { clientId: 'failing', organizationIds: [orgA], clientSecret: 'x', clientSecretExpirationDate: 5 },
      'operator',
    );
    const before = await getSsoProvider('failing');
    secretsManager().fail('CreateSecret', 'AccessDeniedException');
    await expect(
      updateSsoProviderSecret(orgA, 'failing', { clientSecret: 'y', clientSecretExpirationDate: 9 }, 'admin'),
    ).rejects.toThrow('AccessDeniedException');
    expect(await getSsoProvider('failing')).toEqual(before);
  });

  it('rebinding moves the listing entries; concurrent updates all land', async () => {
    await configureSsoProvider(
      { clientId: 'moving', organizationIds: [orgA, orgB], clientSecret: 'x' },
      'operator',
    );
    const rebound = await configureSsoProvider(
      { clientId: 'moving', organizationIds: [orgC, orgB] },
      'operator',
    );
    expect(rebound.organizationIds).toEqual([orgB, orgC].sort());
    expect((await listSsoProviders(orgA)).map((provider) => provider.clientId)).not.toContain('moving');
    expect((await listSsoProviders(orgC)).map((provider) => provider.clientId)).toContain('moving');

    const before = (await getSsoProvider('moving'))?.version ?? 0;
    await Promise.all(
      [1, 2, 3, 4, 5].map((hint) =>
        updateSsoProviderSecret(
          orgC,
          'moving',
          { clientSecret: `s${hint}`, clientSecretExpirationDate: hint },
          'admin',
        ),
      ),
    );
    const after = await getSsoProvider('moving');
    expect(after?.version).toBe(before + 5);
    // Every binding carries the hint the provider ended with.
    for (const org of [orgB, orgC]) {
      const listed = (await listSsoProviders(org)).find((provider) => provider.clientId === 'moving');
      expect(listed?.clientSecretExpirationDate).toBe(after?.clientSecretExpirationDate);
    }
  });

  it('refuses unknown organizations and a new provider without a secret', async () => {
    await expect(
      configureSsoProvider(
        { clientId: 'p', organizationIds: ['no-such-org'], clientSecret: 'x' },
        'operator',
      ),
    ).rejects.toThrow('No organization with id no-such-org');
    await expect(
      configureSsoProvider({ clientId: 'p', organizationIds: [orgA] }, 'operator'),
    ).rejects.toThrow('needs its client secret');
    expect(secretWrites()).toEqual([]);
  });
});
