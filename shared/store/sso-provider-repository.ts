import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { secretStore, ssoSecretName } from '../auth/secret-store.js';
import { badRequest, notFound } from '../http/errors.js';
import { batchGet } from './batch.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { queryDirectory, queryPartition } from './query.js';
import {
  ConcurrentChange,
  retryOnConcurrentChange,
  type TransactItems,
  transactWrite,
} from './transactions.js';

/** One transaction writes the provider, a binding per organization and the removed bindings. */
export const MAX_SSO_PROVIDER_ORGANIZATIONS = 40;

export interface SsoProviderBinding {
  clientId: string;
  /** A hint from the customer (ms); 0 when never given. */
  clientSecretExpirationDate: number;
}

export interface SsoProvider extends SsoProviderBinding {
  organizationIds: string[];
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  updatedBy: string;
  version: number;
}

const toProvider = (item: Record<string, unknown>): SsoProvider => ({
  clientId: String(item.clientId),
  clientSecretExpirationDate: Number(item.clientSecretExpirationDate),
  organizationIds: [...((item.organizationIds as Set<string> | undefined) ?? [])].sort(),
  createdAt: Number(item.createdAt),
  createdBy: String(item.createdBy),
  updatedAt: Number(item.updatedAt),
  updatedBy: String(item.updatedBy),
  version: Number(item.version),
});

const storeClientSecret = async (clientId: string, clientSecret: string) =>
  (await secretStore()).put(ssoSecretName(clientId), clientSecret);

/** The hint in whole milliseconds (a fraction of one tells support nothing). */
const wholeMillis = (epochMillis: number | undefined) =>
  epochMillis === undefined ? undefined : Math.round(epochMillis);

/** The providers bound to the organization, in client id order: one Query. */
export const listSsoProviders = async (orgId: string): Promise<SsoProviderBinding[]> =>
  (await queryPartition(keys.ssoProviderBindingPartition(orgId), undefined, { consistent: true })).map(
    (item) => ({
      clientId: String(item.clientId),
      clientSecretExpirationDate: Number(item.clientSecretExpirationDate),
    }),
  );

/** Every provider with its organizations (operators). */
export const listAllSsoProviders = async (): Promise<SsoProvider[]> =>
  (await queryDirectory(keys.ssoProviderDirectory)).map(toProvider);

export const getSsoProvider = async (clientId: string): Promise<SsoProvider | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.ssoProvider(clientId), ConsistentRead: true }),
  );
  return Item ? toProvider(Item) : undefined;
};

/**
 * Writes the provider and its bindings as `next` says, in one transaction conditioned on the
 * provider being as it was read (`previous`), so concurrent changes never leave a stray binding.
 */
const writeProvider = async (previous: SsoProvider | undefined, next: SsoProvider): Promise<void> => {
  const table = tableName();
  const previousOrgs = previous?.organizationIds ?? [];
  const unbound = previousOrgs.filter((orgId) => !next.organizationIds.includes(orgId));
  // Bindings copy the hint: rewrite them all when it changes, otherwise only add the new ones.
  const bindingsToWrite =
    previous?.clientSecretExpirationDate === next.clientSecretExpirationDate
      ? next.organizationIds.filter((orgId) => !previousOrgs.includes(orgId))
      : next.organizationIds;
  const items: TransactItems = [
    {
      Put: {
        TableName: table,
        Item: {
          ...keys.ssoProvider(next.clientId),
          ...keys.ssoProviderDirectory,
          gsi1sk: next.clientId,
          ...next,
          organizationIds: new Set(next.organizationIds),
        },
        ...(previous
          ? {
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': previous.version },
            }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      },
    },
    ...bindingsToWrite.map((orgId) => ({
      Put: {
        TableName: table,
        Item: {
          ...keys.ssoProviderBinding(orgId, next.clientId),
          clientId: next.clientId,
          clientSecretExpirationDate: next.clientSecretExpirationDate,
        },
      },
    })),
    ...unbound.map((orgId) => ({
      Delete: { TableName: table, Key: keys.ssoProviderBinding(orgId, next.clientId) },
    })),
  ];
  await transactWrite(items, () => new ConcurrentChange());
};

/**
 * Read-modify-write of a provider: `change` turns what was read into what to write; the first
 * attempt uses `firstRead`, a retry after a concurrent change reads again.
 */
const rewriteProvider = async (
  clientId: string,
  firstRead: SsoProvider | undefined,
  change: (read: SsoProvider | undefined) => SsoProvider,
): Promise<SsoProvider> => {
  let retrying = false;
  return retryOnConcurrentChange(async () => {
    const previous = retrying ? await getSsoProvider(clientId) : firstRead;
    retrying = true;
    const next = change(previous);
    await writeProvider(previous, next);
    return next;
  });
};

export interface SecretUpdate {
  clientSecret: string;
  /** Omitted: the previous hint stays. */
  clientSecretExpirationDate?: number | undefined;
}

/**
 * `POST /sso-providers/{clientId}`: replaces the secret (for every organization the provider
 * serves) and, when given, the expiration hint. 404 unless the provider serves `orgId`. The
 * secret is written first; the table records the hint and who changed it when.
 */
export const updateSsoProviderSecret = async (
  orgId: string,
  clientId: string,
  update: SecretUpdate,
  updatedBy: string,
  now = Date.now(),
): Promise<void> => {
  const current = await getSsoProvider(clientId);
  if (!current?.organizationIds.includes(orgId)) throw notFound('SSO provider');
  await storeClientSecret(clientId, update.clientSecret);
  await rewriteProvider(clientId, current, (provider) => {
    // A retry re-reads: the provider may have been rebound away from the caller meanwhile.
    if (!provider?.organizationIds.includes(orgId)) throw notFound('SSO provider');
    return {
      ...provider,
      clientSecretExpirationDate:
        wholeMillis(update.clientSecretExpirationDate) ?? provider.clientSecretExpirationDate,
      updatedAt: now,
      updatedBy,
      version: provider.version + 1,
    };
  });
};

export interface SsoProviderConfiguration {
  clientId: string;
  /** Exactly the organizations it serves from now on. */
  organizationIds: readonly string[];
  /** Required for a new provider; omitted, an existing provider keeps its secret. */
  clientSecret?: string | undefined;
  clientSecretExpirationDate?: number | undefined;
}

/** Operators: creates a provider or rebinds it (and replaces its secret when one is given). */
export const configureSsoProvider = async (
  configuration: SsoProviderConfiguration,
  by: string,
  now = Date.now(),
): Promise<SsoProvider> => {
  const organizationIds = [...new Set(configuration.organizationIds)].sort();
  if (organizationIds.length === 0 || organizationIds.length > MAX_SSO_PROVIDER_ORGANIZATIONS) {
    throw badRequest(`An SSO provider serves 1 to ${MAX_SSO_PROVIDER_ORGANIZATIONS} organizations`);
  }
  const [existing, organizations] = await Promise.all([
    getSsoProvider(configuration.clientId),
    batchGet(organizationIds.map(keys.organization)),
  ]);
  const unknown = organizationIds.filter((orgId) => !organizations.some((item) => item.id === orgId));
  if (unknown.length > 0) throw badRequest(`No organization with id ${unknown.join(', ')}`);
  if (!existing && configuration.clientSecret === undefined) {
    throw badRequest('A new SSO provider needs its client secret');
  }
  if (configuration.clientSecret !== undefined) {
    await storeClientSecret(configuration.clientId, configuration.clientSecret);
  }
  return rewriteProvider(configuration.clientId, existing, (read) => ({
    clientId: configuration.clientId,
    organizationIds,
    clientSecretExpirationDate:
      wholeMillis(configuration.clientSecretExpirationDate) ?? read?.clientSecretExpirationDate ?? 0,
    createdAt: read?.createdAt ?? now,
    createdBy: read?.createdBy ?? by,
    updatedAt: now,
    updatedBy: by,
    version: (read?.version ?? 0) + 1,
  }));
};
