import { changesBetween } from '../audit/changes.js';
import type { AuditEvent } from '../audit/record.js';
import { NotFound, PreconditionFailed } from '../domain/errors.js';
import { MAX_SSO_PROVIDERS_PER_ORGANIZATION } from '../domain/limits.js';
import type * as z from '../zod.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { OrganizationEntity } from './entities.js';
import { keys } from './keys.js';
import { queryDirectory, queryPartition } from './query.js';
import { SsoProviderBindingEntity, SsoProviderEntity } from './sso-entities.js';
import { dropSecretValue, withSecretValue } from './sso-secret-values.js';
import { concurrentChange, put, remove, retryOnConcurrentChange, transact, type Write } from './writes.js';

/**
 * One transaction writes the provider, a binding per organization, the removed bindings and a
 * record in each organization touched: at most 1 + 24 + 24 + 48 = 97 of DynamoDB's 100 items.
 */
export const MAX_SSO_PROVIDER_ORGANIZATIONS = 24;

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

/** What a binding copies from its provider (the sign-in page reads bindings only). */
const bindingOf = (provider: SsoProvider, orgId: string): Omit<SsoProviderBinding, 'organizationId'> => ({
  clientId: provider.clientId,
  ...(provider.boundAt?.[orgId] !== undefined ? { boundAt: provider.boundAt[orgId] } : {}),
  clientSecretExpirationDate: provider.clientSecretExpirationDate,
  ...(provider.issuer ? { issuer: provider.issuer } : {}),
  ...(provider.scopes ? { scopes: provider.scopes } : {}),
  ...(provider.displayName ? { displayName: provider.displayName } : {}),
  ...(provider.emailDomains?.length ? { emailDomains: provider.emailDomains } : {}),
});

/**
 * Writes the provider and its bindings as `next` says, in one transaction conditioned on the
 * provider being as it was read (`previous`), so concurrent changes never leave a stray binding.
 * Every binding is rewritten (at most MAX_SSO_PROVIDER_ORGANIZATIONS): each copies what the sign-in page shows.
 */
const writeProvider = async (
  previous: SsoProvider | undefined,
  next: SsoProvider,
  audit: readonly Write[],
): Promise<void> => {
  const unbound = (previous?.organizationIds ?? []).filter((orgId) => !next.organizationIds.includes(orgId));
  await transact([
    ...audit,
    put(
      SsoProviderEntity.item(next, { ...next, organizationIds: new Set(next.organizationIds) }),
      previous
        ? { condition: 'version = :version', values: { ':version': previous.version } }
        : { condition: 'attribute_not_exists(pk)' },
      concurrentChange,
    ),
    ...next.organizationIds.map((orgId) =>
      put(
        SsoProviderBindingEntity.item(
          { organizationId: orgId, clientId: next.clientId },
          bindingOf(next, orgId),
        ),
      ),
    ),
    ...unbound.map((orgId) =>
      remove(SsoProviderBindingEntity.key({ organizationId: orgId, clientId: next.clientId })),
    ),
  ]);
};

/**
 * Read-modify-write of a provider: `change` turns what was read into what to write; the first
 * attempt uses `firstRead`, a retry after a concurrent change reads again. `audit` makes the
 * writes of the audit record of the change, in its transaction (once per attempt: one commits).
 */
/** The provider as its records name it. */
const targetOf = (provider: SsoProvider) => ({
  type: 'ssoProvider',
  id: provider.clientId,
  ...(provider.displayName ? { name: provider.displayName } : {}),
});

/** What a record says changed: how people sign in, never which other organizations it serves. */
const settingsOf = (provider: SsoProvider | undefined) => ({
  issuer: provider?.issuer,
  scopes: provider?.scopes,
  displayName: provider?.displayName,
  emailDomains: provider?.emailDomains,
  jitProvisioning: provider?.jitProvisioning,
  trustedForMfa: provider?.trustedForMfa,
  clientSecretExpirationDate: provider?.clientSecretExpirationDate,
});

/**
 * The records of an operator's change to a provider, one in each organization it touches, to
 * ride in the change's transaction: `created` (a new provider), `bound` (it now serves the
 * organization), `updated` (it still does, and what changed; none when nothing did), `unbound`,
 * `deleted`. Each organization's record names only its own side: no other organization's id.
 */
const providerRecords = async (
  previous: SsoProvider | undefined,
  next: SsoProvider | undefined,
  secretChanged: boolean,
  now: number,
): Promise<Write[]> => {
  const before = new Set(previous?.organizationIds);
  const after = new Set(next?.organizationIds);
  const changes = {
    ...(secretChanged ? { clientSecret: 'changed' as const } : {}),
    ...changesBetween(settingsOf(previous), settingsOf(next)),
  };
  const events: AuditEvent[] = [
    ...[...after].flatMap((organizationId): AuditEvent[] => {
      const action = !previous
        ? 'sso.provider.created'
        : before.has(organizationId)
          ? 'sso.provider.updated'
          : 'sso.provider.bound';
      if (action === 'sso.provider.updated' && Object.keys(changes).length === 0) return [];
      return [{ organizationId, action, targets: [targetOf(next as SsoProvider)], changes }];
    }),
    ...[...before]
      .filter((organizationId) => !after.has(organizationId))
      .map(
        (organizationId): AuditEvent => ({
          organizationId,
          action: next ? 'sso.provider.unbound' : 'sso.provider.deleted',
          targets: [targetOf(previous as SsoProvider)],
        }),
      ),
  ];
  return (await Promise.all(events.map((event) => auditWrites(event, now)))).flat();
};

const rewriteProvider = async (
  clientId: string,
  firstRead: SsoProvider | undefined,
  change: (read: SsoProvider | undefined) => SsoProvider,
  audit?: (read: SsoProvider | undefined, next: SsoProvider) => Promise<Write[]>,
): Promise<{ result: SsoProvider; replaced: SsoProvider | undefined }> => {
  let retrying = false;
  return retryOnConcurrentChange(async () => {
    const previous = retrying ? await getSsoProvider(clientId) : firstRead;
    retrying = true;
    const next = change(previous);
    await writeProvider(previous, next, audit ? await audit(previous, next) : []);
    return { result: next, replaced: previous };
  });
};

export interface SecretUpdate {
  clientSecret: string;
  /** Omitted: the previous hint stays. */
  clientSecretExpirationDate?: number | undefined;
}

/**
 * `POST /sso-providers/{clientId}`: replaces the secret (for every organization the provider
 * serves) and, when given, the expiration hint. 404 unless the provider serves `orgId`. The new
 * value is in use once the provider's transaction commits (sso-secret-values.ts); the table
 * records the hint and who changed it when, and the caller's organization the audit record (the
 * secret never: the record says only that it changed).
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
  await withSecretValue(clientId, update.clientSecret, (secretVersion) =>
    rewriteProvider(
      clientId,
      current,
      (provider) => {
        // A retry re-reads: the provider may have been rebound away from the caller meanwhile.
        if (!provider?.organizationIds.includes(orgId)) throw providerNotFound(clientId);
        return {
          ...provider,
          clientSecretExpirationDate:
            wholeMillis(update.clientSecretExpirationDate) ?? provider.clientSecretExpirationDate,
          ...(secretVersion ? { secretVersion } : {}),
          updatedAt: now,
          updatedBy,
          version: provider.version + 1,
        };
      },
      (read, next) =>
        auditWrites(
          {
            organizationId: orgId,
            action: 'sso.provider.secret.updated',
            targets: [
              { type: 'ssoProvider', id: clientId, ...(next.displayName ? { name: next.displayName } : {}) },
            ],
            changes: {
              clientSecret: 'changed',
              ...changesBetween(
                { clientSecretExpirationDate: read?.clientSecretExpirationDate },
                { clientSecretExpirationDate: next.clientSecretExpirationDate },
              ),
            },
          },
          now,
        ),
    ),
  );
};

/** How people sign in through a provider; each field omitted keeps what the provider had. */
export type FederationSettings = Partial<
  Pick<
    SsoProvider,
    'issuer' | 'scopes' | 'displayName' | 'emailDomains' | 'jitProvisioning' | 'trustedForMfa'
  >
>;

export interface SsoProviderConfiguration extends FederationSettings {
  clientId: string;
  /** Exactly the organizations it serves from now on. */
  organizationIds: readonly string[];
  /** Required for a new provider; omitted, an existing provider keeps its secret. */
  clientSecret?: string | undefined;
  clientSecretExpirationDate?: number | undefined;
}

const definedFields = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

/** The other providers of each organization `clientId` is to serve. */
const otherProviders = (clientId: string, organizationIds: readonly string[]) =>
  Promise.all(
    organizationIds.map(async (orgId) => ({
      orgId,
      others: (await listSsoProviders(orgId)).filter((provider) => provider.clientId !== clientId),
    })),
  );

/**
 * Every organization `clientId` is to serve must have room for it besides its other providers
 * (GET /sso-providers answers them all at once), and no other of them may serve one of its email
 * domains: both would refuse that domain's people, and nobody of it could sign in. Read, then
 * written: only operators bind providers, one change at a time.
 */
const refuseConflicts = (
  organizations: Awaited<ReturnType<typeof otherProviders>>,
  emailDomains: readonly string[],
) => {
  const full = organizations.filter(({ others }) => others.length >= MAX_SSO_PROVIDERS_PER_ORGANIZATION);
  if (full.length > 0) {
    throw new PreconditionFailed(
      `An organization has at most ${MAX_SSO_PROVIDERS_PER_ORGANIZATION} SSO providers; full: ${full.map(({ orgId }) => orgId).join(', ')}`,
    );
  }
  const wanted = new Set(emailDomains.map((domain) => domain.toLowerCase()));
  for (const { orgId, others } of organizations)
    for (const other of others) {
      const shared = (other.emailDomains ?? []).filter((domain) => wanted.has(domain));
      if (shared.length > 0)
        throw new PreconditionFailed(
          `${shared.join(', ')} is served by the SSO provider ${other.clientId} of organization ${orgId} already: a domain has one provider per organization`,
        );
    }
};

/**
 * When each organization was bound: kept while it stays bound, now for a new one. One bound
 * before the times were kept counts from the provider's creation.
 */
const boundTimes = (
  read: SsoProvider | undefined,
  organizationIds: readonly string[],
  now: number,
): Record<string, number> =>
  Object.fromEntries(
    organizationIds.map((orgId) => [
      orgId,
      read?.organizationIds.includes(orgId) ? (read.boundAt?.[orgId] ?? read.createdAt) : now,
    ]),
  );

/** Operators: creates a provider or rebinds it (and replaces its secret when one is given). */
export const configureSsoProvider = async (
  configuration: SsoProviderConfiguration,
  by: string,
  now = Date.now(),
): Promise<SsoProvider> => {
  const {
    clientId,
    organizationIds: requested,
    clientSecret,
    clientSecretExpirationDate,
    ...federation
  } = configuration;
  const organizationIds = [...new Set(requested)].sort();
  if (organizationIds.length === 0 || organizationIds.length > MAX_SSO_PROVIDER_ORGANIZATIONS) {
    throw new PreconditionFailed(
      `An SSO provider serves 1 to ${MAX_SSO_PROVIDER_ORGANIZATIONS} organizations`,
    );
  }
  const organizationKey = (id: string) => OrganizationEntity.key({ id });
  const [existing, organizations, bound] = await Promise.all([
    getSsoProvider(clientId),
    batchGetByKey(organizationIds.map(organizationKey)),
    otherProviders(clientId, organizationIds),
  ]);
  const unknown = organizationIds.filter((orgId) => !organizations.get(organizationKey(orgId)));
  if (unknown.length > 0) throw new PreconditionFailed(`No organization with id ${unknown.join(', ')}`);
  if (!existing && clientSecret === undefined) {
    throw new PreconditionFailed('A new SSO provider needs its client secret');
  }
  refuseConflicts(bound, federation.emailDomains ?? existing?.emailDomains ?? []);
  const jit = federation.jitProvisioning ?? existing?.jitProvisioning;
  if (jit && !(federation.emailDomains ?? existing?.emailDomains)?.length) {
    // Otherwise anyone the upstream vouches for would get an account.
    throw new PreconditionFailed('Just-in-time creation needs the email domains the provider serves');
  }
  return withSecretValue(clientId, clientSecret, (secretVersion) =>
    rewriteProvider(
      clientId,
      existing,
      (read) => {
        // A retry re-reads: the provider may have been deleted meanwhile, and a new one needs a secret.
        if (!read && secretVersion === undefined)
          throw new PreconditionFailed('A new SSO provider needs its client secret');
        return {
          ...read,
          ...definedFields(federation),
          ...(secretVersion ? { secretVersion } : {}),
          emailDomains: (federation.emailDomains ?? read?.emailDomains ?? []).map((domain) =>
            domain.toLowerCase(),
          ),
          clientId,
          organizationIds,
          clientSecretExpirationDate:
            wholeMillis(clientSecretExpirationDate) ?? read?.clientSecretExpirationDate ?? 0,
          boundAt: boundTimes(read, organizationIds, now),
          createdAt: read?.createdAt ?? now,
          createdBy: read?.createdBy ?? by,
          updatedAt: now,
          updatedBy: by,
          version: (read?.version ?? 0) + 1,
        };
      },
      (read, next) => providerRecords(read, next, clientSecret !== undefined, now),
    ),
  );
};

/** Operators: the provider stops serving one organization (the last one: delete it instead). */
export const unbindSsoProvider = async (
  clientId: string,
  orgId: string,
  by: string,
  now = Date.now(),
): Promise<SsoProvider> => {
  const { result } = await rewriteProvider(
    clientId,
    await getSsoProvider(clientId),
    (read) => {
      if (!read?.organizationIds.includes(orgId)) throw providerNotFound(clientId);
      if (read.organizationIds.length === 1) {
        throw new PreconditionFailed(`${clientId} serves only ${orgId}: delete the provider instead`);
      }
      return {
        ...read,
        organizationIds: read.organizationIds.filter((id) => id !== orgId),
        boundAt: boundTimes(
          read,
          read.organizationIds.filter((id) => id !== orgId),
          now,
        ),
        updatedAt: now,
        updatedBy: by,
        version: read.version + 1,
      };
    },
    (read, next) => providerRecords(read, next, false, now),
  );
  return result;
};

/**
 * Operators: removes the provider, its bindings and then its secret (no sign-in finds the
 * provider, so none reads the secret, after the transaction).
 */
export const deleteSsoProvider = async (clientId: string, now = Date.now()): Promise<void> => {
  const deleted = await retryOnConcurrentChange(async () => {
    const provider = await getSsoProvider(clientId);
    if (!provider) throw providerNotFound(clientId);
    await transact([
      ...(await providerRecords(provider, undefined, false, now)),
      remove(
        SsoProviderEntity.key({ clientId }),
        { condition: 'version = :version', values: { ':version': provider.version } },
        concurrentChange,
      ),
      ...provider.organizationIds.map((orgId) =>
        remove(SsoProviderBindingEntity.key({ organizationId: orgId, clientId })),
      ),
    ]);
    return provider;
  });
  await dropSecretValue(clientId, deleted.secretVersion);
};
