import type { z } from 'zod';
import { secretStore, ssoSecretName } from '../auth/secret-store.js';
import { NotFound, PreconditionFailed } from '../domain/errors.js';
import { batchGetByKey } from './batch.js';
import { OrganizationEntity, SsoProviderBindingEntity, SsoProviderEntity } from './entities.js';
import { keys } from './keys.js';
import { queryDirectory, queryPartition } from './query.js';
import { concurrentChange, put, remove, retryOnConcurrentChange, transact } from './writes.js';

/** One transaction writes the provider, a binding per organization and the removed bindings. */
export const MAX_SSO_PROVIDER_ORGANIZATIONS = 40;

export type SsoProviderBinding = z.output<typeof SsoProviderBindingEntity.attributes>;

/** A provider with its organizations as a sorted list. */
export type SsoProvider = Omit<z.output<typeof SsoProviderEntity.attributes>, 'organizationIds'> & {
  organizationIds: string[];
};

const toProvider = (item: Record<string, unknown>): SsoProvider => {
  const provider = SsoProviderEntity.decode(item);
  return { ...provider, organizationIds: [...provider.organizationIds].sort() };
};

const providerNotFound = (clientId: string) => new NotFound('SSO provider', clientId);

const storeClientSecret = async (clientId: string, clientSecret: string) =>
  (await secretStore()).put(ssoSecretName(clientId), clientSecret);

/** The hint in whole milliseconds (a fraction of one tells support nothing). */
const wholeMillis = (epochMillis: number | undefined) =>
  epochMillis === undefined ? undefined : Math.round(epochMillis);

/** The providers bound to the organization, in client id order: one Query. */
export const listSsoProviders = async (orgId: string): Promise<SsoProviderBinding[]> =>
  (await queryPartition(keys.ssoProviderBindingPartition(orgId), undefined, { consistent: true })).map(
    SsoProviderBindingEntity.decode,
  );

/** Every provider with its organizations (operators). */
export const listAllSsoProviders = async (): Promise<SsoProvider[]> =>
  (await queryDirectory(keys.ssoProviderDirectory)).map(toProvider);

export const getSsoProvider = async (clientId: string): Promise<SsoProvider | undefined> => {
  const provider = await SsoProviderEntity.get({ clientId });
  return provider && { ...provider, organizationIds: [...provider.organizationIds].sort() };
};

/**
 * Writes the provider and its bindings as `next` says, in one transaction conditioned on the
 * provider being as it was read (`previous`), so concurrent changes never leave a stray binding.
 */
const writeProvider = async (previous: SsoProvider | undefined, next: SsoProvider): Promise<void> => {
  const previousOrgs = previous?.organizationIds ?? [];
  const unbound = previousOrgs.filter((orgId) => !next.organizationIds.includes(orgId));
  // Bindings copy the hint: rewrite them all when it changes, otherwise only add the new ones.
  const bindingsToWrite =
    previous?.clientSecretExpirationDate === next.clientSecretExpirationDate
      ? next.organizationIds.filter((orgId) => !previousOrgs.includes(orgId))
      : next.organizationIds;
  const binding = { clientId: next.clientId, clientSecretExpirationDate: next.clientSecretExpirationDate };
  await transact([
    put(
      SsoProviderEntity.item(next, { ...next, organizationIds: new Set(next.organizationIds) }),
      previous
        ? { condition: 'version = :version', values: { ':version': previous.version } }
        : { condition: 'attribute_not_exists(pk)' },
      concurrentChange,
    ),
    ...bindingsToWrite.map((orgId) =>
      put(SsoProviderBindingEntity.item({ organizationId: orgId, ...binding }, binding)),
    ),
    ...unbound.map((orgId) =>
      remove(SsoProviderBindingEntity.key({ organizationId: orgId, clientId: next.clientId })),
    ),
  ]);
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
  if (!current?.organizationIds.includes(orgId)) throw providerNotFound(clientId);
  await storeClientSecret(clientId, update.clientSecret);
  await rewriteProvider(clientId, current, (provider) => {
    // A retry re-reads: the provider may have been rebound away from the caller meanwhile.
    if (!provider?.organizationIds.includes(orgId)) throw providerNotFound(clientId);
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
    throw new PreconditionFailed(
      `An SSO provider serves 1 to ${MAX_SSO_PROVIDER_ORGANIZATIONS} organizations`,
    );
  }
  const organizationKey = (id: string) => OrganizationEntity.key({ id });
  const [existing, organizations] = await Promise.all([
    getSsoProvider(configuration.clientId),
    batchGetByKey(organizationIds.map(organizationKey)),
  ]);
  const unknown = organizationIds.filter((orgId) => !organizations.get(organizationKey(orgId)));
  if (unknown.length > 0) throw new PreconditionFailed(`No organization with id ${unknown.join(', ')}`);
  if (!existing && configuration.clientSecret === undefined) {
    throw new PreconditionFailed('A new SSO provider needs its client secret');
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
