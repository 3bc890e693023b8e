import { randomBytes, randomUUID } from 'node:crypto';
import type { UserType } from '../api/route-definition.js';
import { changesBetween } from '../audit/changes.js';
import { storeConfig } from '../config.js';
import { refuseStandardClientPolicies } from '../domain/api-client-rules.js';
import type { IdTokenSigningAlgorithm } from '../domain/applications.js';
import { CONSOLE_CLIENT_MANAGED, consoleClientId } from '../domain/console-client.js';
import { Conflict, InvalidReference, NotFound } from '../domain/errors.js';
import { accessVersionBump } from './access-versions.js';
import { auditWrites } from './audit-records.js';
import { browserOriginChanges, browserOriginRemovals, browserOriginWrites } from './browser-origins.js';
import { refuseUnusableKeys } from './client-key-material.js';
import { ApiClientEntity, type ApiClientRecord, PolicyEntity, RoleEntity } from './entities.js';
import { keys, LISTINGS, TABLE_SCHEMA } from './keys.js';
import { bucketCountDelta, type ListingIndex, nextSequence, readPage } from './sequenced-listing.js';
import { checkLive, concurrentChange, put, retryOnConcurrentChange, transact, update } from './writes.js';

export type { ApiClientRecord } from './entities.js';

type ApplicationField =
  | 'flowType'
  | 'redirectUris'
  | 'postLogoutRedirectUris'
  | 'tokenEndpointAuthMethod'
  | 'idTokenSignedResponseAlg'
  | 'requirePushedAuthorizationRequests'
  | 'remoteAddresses'
  | 'jwks';

/** Whether the client authenticates with a secret: not a public application, nor one that signs assertions. */
export const hasSecret = (client: Pick<ApiClientRecord, 'tokenEndpointAuthMethod'>): boolean =>
  client.tokenEndpointAuthMethod !== 'none' && client.tokenEndpointAuthMethod !== 'private_key_jwt';

/** The console's own application is the service's to manage (shared/domain/console-client.ts). */
const refuseConsoleClient = (client: ApiClientRecord) => {
  if (client.id === consoleClientId(client.organizationId))
    throw new Conflict('API client', CONSOLE_CLIENT_MANAGED);
};

const NO_SECRET =
  'This client has no secret: it is a public application, or authenticates with private_key_jwt';

/** What an application's ID tokens are signed with: ES256 for those registered before RS256 was offered. */
export const idTokenSigningAlgorithm = (
  application: Pick<ApiClientRecord, 'idTokenSignedResponseAlg'>,
): IdTokenSigningAlgorithm => application.idTokenSignedResponseAlg ?? 'ES256';

export const newClientSecret = (): string => randomBytes(32).toString('base64url');

const NOT_DELETED = '(attribute_not_exists(deleted) OR deleted = :false)';
const clientNotFound = (clientId: string) => () => new NotFound('API client', clientId);

/** Clients live in their own partitions (the token endpoint reads them by id alone): listed via gsi1. */
const clientListing = (orgId: string): ListingIndex => {
  const index = TABLE_SCHEMA.indexes[0];
  return {
    name: index.name,
    partitionAttribute: index.partitionKey,
    partitionValue: keys.apiClientDirectory(orgId).gsi1pk,
    sortAttribute: index.sortKey,
    consistent: false,
  };
};

/** A client as the audit log names it. */
const clientTarget = (client: Pick<ApiClientRecord, 'id' | 'name'>) => ({
  type: 'client',
  id: client.id,
  name: client.name,
});

/**
 * What a record of a client's registration shows (its secret only as "changed"). An application
 * stored without `requirePushedAuthorizationRequests` has it false: setting false is no change.
 */
const auditedFields = ({ organizationId: _org, sequence: _sequence, ...fields }: ApiClientRecord) =>
  fields.flowType === 'authorization_code'
    ? { ...fields, requirePushedAuthorizationRequests: fields.requirePushedAuthorizationRequests === true }
    : fields;

const unknownReference = (field: 'roles' | 'policies', id: string) => () =>
  new InvalidReference(`Unknown ${field === 'roles' ? 'role' : 'policy'}`, [
    { message: 'Not a live one of this organization', field, rejectedValue: id },
  ]);

/**
 * Registers a client: its item (listed in creation order) and the listing count, in one
 * transaction that also checks every role and policy is live in the organization (refused naming
 * the first that is not). Policies apply to RESTRICTED clients only (spec section 2): a STANDARD
 * client carrying some is refused.
 */
export const createApiClient = async (
  input: {
    organizationId: string;
    name: string;
    clientType: UserType;
    roles: readonly string[];
    policies: readonly string[];
    createdBy: string;
    id?: string;
    clientSecret?: string;
    /** The id may be a deleted client's (the console's own application, registered again). */
    overDeleted?: boolean;
  } & Partial<Pick<ApiClientRecord, ApplicationField>>,
  now = Date.now(),
): Promise<ApiClientRecord> => {
  refuseStandardClientPolicies(input.clientType, input.policies);
  refuseUnusableKeys(input.jwks);
  const orgId = input.organizationId;
  const roles = [...new Set(input.roles)].sort();
  const policies = [...new Set(input.policies)].sort();
  const { sequence } = await nextSequence(orgId, 'clientSequence');
  const flowType = input.flowType ?? 'api_key';
  const isApplication = flowType === 'authorization_code';
  // An API client authenticates with its secret (no method stored) or with private_key_jwt.
  const authMethod = isApplication
    ? (input.tokenEndpointAuthMethod ?? 'client_secret_basic')
    : input.tokenEndpointAuthMethod;
  const client: ApiClientRecord = {
    id: input.id ?? randomUUID(),
    organizationId: orgId,
    name: input.name,
    // A public application (browser, native) has no secret: it proves itself with PKCE alone; a
    // private_key_jwt client proves itself with its keys.
    clientSecret: hasSecret({ tokenEndpointAuthMethod: authMethod })
      ? (input.clientSecret ?? newClientSecret())
      : '',
    flowType,
    redirectUris: input.redirectUris ?? [],
    postLogoutRedirectUris: input.postLogoutRedirectUris ?? [],
    ...(authMethod ? { tokenEndpointAuthMethod: authMethod } : {}),
    ...(isApplication ? { idTokenSignedResponseAlg: input.idTokenSignedResponseAlg ?? 'RS256' } : {}),
    ...(isApplication && input.requirePushedAuthorizationRequests
      ? { requirePushedAuthorizationRequests: true }
      : {}),
    remoteAddresses: input.remoteAddresses ?? [],
    ...(authMethod === 'private_key_jwt' && input.jwks ? { jwks: input.jwks } : {}),
    secretIssuedAt: now,
    clientType: input.clientType,
    roles,
    policies,
    createdBy: input.createdBy,
    createdDate: now,
    lastModifiedBy: input.createdBy,
    lastModifiedDate: now,
    sequence,
  };
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'client.created',
        targets: [clientTarget(client)],
        changes: changesBetween(undefined, auditedFields(client)),
      },
      now,
    )),
    put(
      ApiClientEntity.item(client, client),
      // A fixed id the service manages may take the place of a deleted client's tombstone.
      input.overDeleted
        ? { condition: 'attribute_not_exists(pk) OR deleted = :true', values: { ':true': true } }
        : { condition: 'attribute_not_exists(pk)' },
      () => new Conflict('API client', 'An API client with this id already exists'),
    ),
    bucketCountDelta(orgId, LISTINGS.clients, sequence, 1),
    ...roles.map((id) =>
      checkLive(RoleEntity.key({ organizationId: orgId, id }), unknownReference('roles', id)),
    ),
    ...policies.map((id) =>
      checkLive(PolicyEntity.key({ organizationId: orgId, id }), unknownReference('policies', id)),
    ),
    ...browserOriginWrites(client),
  ]);
  return client;
};

export const listApiClients = async (orgId: string, page: number, pageSize: number, after?: number) => {
  const { items, hasMore, nextAfter } = await readPage(
    orgId,
    LISTINGS.clients,
    page,
    pageSize,
    ApiClientEntity,
    {
      index: clientListing(orgId),
      after,
    },
  );
  return { clients: items, hasMore, nextAfter };
};

/** Strongly consistent: a rotation or deletion counts at once at the token endpoint. */
export const getApiClient = async (clientId: string): Promise<ApiClientRecord | undefined> => {
  const client = await ApiClientEntity.get({ id: clientId });
  return client && !client.deleted ? client : undefined;
};

/**
 * The secret of a live client of the organization, if it is still the one issued at `issuedAt`:
 * an idempotent replay shows the secret it first showed, read from the client's own item.
 */
export const secretIssuedAt = async (
  orgId: string,
  clientId: string,
  issuedAt: unknown,
): Promise<string | undefined> => {
  const client = await getApiClient(clientId);
  if (client?.organizationId !== orgId) return undefined;
  return (client.secretIssuedAt ?? client.createdDate) === issuedAt ? client.clientSecret : undefined;
};

const LIVENESS = ApiClientEntity.projection('organizationId', 'deleted');

/** The organization of a live client (projected read), for the per-request "still active?" check. */
export const liveClientOrganization = async (clientId: string): Promise<string | undefined> => {
  const client = await ApiClientEntity.getProjected({ id: clientId }, LIVENESS, { consistent: false });
  return client && !client.deleted ? client.organizationId : undefined;
};

const NAMES = ApiClientEntity.projection('id', 'name', 'organizationId', 'deleted');

/** Names of the live clients of the organization among these items (read together with others). */
export const clientNameOf = (item: Record<string, unknown>, orgId: string): string | undefined => {
  const client = NAMES.decode(item);
  return client.organizationId === orgId && !client.deleted ? client.name : undefined;
};

/**
 * Issues a new secret; the previous one keeps working for `graceSeconds` (by default the
 * configured grace, 24 h), then stops. Read first, then written on condition that nobody changed
 * the client meanwhile: the answer (and the audit record) are exactly what was written.
 */
export const rotateClientSecret = (
  orgId: string,
  clientId: string,
  rotatedBy: string,
  graceSeconds = storeConfig().clientSecretGraceSeconds,
  now = Date.now(),
): Promise<ApiClientRecord> =>
  retryOnConcurrentChange(async () => {
    const client = await getApiClient(clientId);
    if (client?.organizationId !== orgId) throw clientNotFound(clientId)();
    if (!hasSecret(client)) throw new Conflict('API client', NO_SECRET);
    const rotated: ApiClientRecord = {
      ...client,
      clientSecret: newClientSecret(),
      previousSecret: client.clientSecret,
      previousSecretExpiresAt: now + graceSeconds * 1000,
      secretIssuedAt: now,
      lastModifiedBy: rotatedBy,
      lastModifiedDate: now,
    };
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'client.secret.rotated',
          targets: [clientTarget(client)],
          changes: changesBetween(
            { clientSecret: client.clientSecret },
            { clientSecret: rotated.clientSecret },
          ),
        },
        now,
      )),
      update(
        keys.apiClient(clientId),
        {
          update:
            'SET previousSecret = clientSecret, previousSecretExpiresAt = :expires, clientSecret = :secret, secretIssuedAt = :now, lastModifiedBy = :by, lastModifiedDate = :now',
          // A deletion or another change since the read: read again (and refuse a deleted client).
          condition: `attribute_exists(pk) AND ${NOT_DELETED} AND clientSecret = :read AND lastModifiedDate = :readAt`,
          values: {
            ':false': false,
            ':read': client.clientSecret,
            ':readAt': client.lastModifiedDate,
            ':expires': rotated.previousSecretExpiresAt,
            ':secret': rotated.clientSecret,
            ':by': rotatedBy,
            ':now': now,
          },
        },
        concurrentChange,
      ),
    ]);
    return rotated;
  });

/** What may change after registration (`PATCH /idp/clients/{id}`); each field left out stays. */
export type ApiClientChanges = Partial<
  Pick<
    ApiClientRecord,
    | 'name'
    | 'redirectUris'
    | 'postLogoutRedirectUris'
    | 'idTokenSignedResponseAlg'
    | 'requirePushedAuthorizationRequests'
    | 'remoteAddresses'
    | 'jwks'
  >
>;

const APPLICATION_ONLY: readonly (keyof ApiClientChanges)[] = [
  'redirectUris',
  'postLogoutRedirectUris',
  'idTokenSignedResponseAlg',
  'requirePushedAuthorizationRequests',
];

/** A change that does not fit the kind of client: a field of the other kind, or no redirect URI left. */
const changeProblem = (
  client: ApiClientRecord,
  changes: ApiClientChanges,
): { field: keyof ApiClientChanges; message: string } | undefined => {
  const application = client.flowType === 'authorization_code';
  const misplaced = application
    ? changes.remoteAddresses !== undefined && 'remoteAddresses'
    : APPLICATION_ONLY.find((field) => changes[field] !== undefined);
  if (misplaced) {
    return {
      field: misplaced,
      message: application
        ? 'Only an api_key client is restricted by address'
        : 'Only for an authorization_code application',
    };
  }
  if (changes.jwks !== undefined && client.tokenEndpointAuthMethod !== 'private_key_jwt')
    return { field: 'jwks', message: 'Only for a client that authenticates with private_key_jwt' };
  if (changes.redirectUris?.length === 0)
    return {
      field: 'redirectUris',
      message: 'An authorization_code application needs at least one redirect URI',
    };
  return undefined;
};

/**
 * The writes of a change of `client` as read into `updated` (`given` holds the fields set): its
 * record, and the item's update on condition that nobody changed it since, nor deleted it.
 */
const changeWrites = async (
  client: ApiClientRecord,
  updated: ApiClientRecord,
  given: Record<string, unknown>,
  now: number,
  { remove = [] }: { remove?: readonly string[] } = {},
) => {
  const names = Object.keys(given);
  return [
    ...(await auditWrites(
      {
        organizationId: client.organizationId,
        action: 'client.updated',
        targets: [clientTarget(updated)],
        changes: changesBetween(auditedFields(client), auditedFields(updated)),
      },
      now,
    )),
    update(
      keys.apiClient(client.id),
      {
        update: `SET ${[...names.map((_name, index) => `#f${index} = :f${index}`), 'lastModifiedBy = :by', 'lastModifiedDate = :now'].join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        // A deletion or another change since the read: read again (and refuse a deleted client).
        condition: `attribute_exists(pk) AND ${NOT_DELETED} AND lastModifiedDate = :readAt`,
        names: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
        values: {
          ...Object.fromEntries(names.map((name, index) => [`:f${index}`, given[name]])),
          ':false': false,
          ':readAt': client.lastModifiedDate,
          ':by': updated.lastModifiedBy,
          ':now': now,
        },
      },
      concurrentChange,
    ),
  ];
};

/**
 * Changes a client's registration: the item, its browser origins (those that come or go) and its
 * record in one transaction, conditional on the client being as read and live. The token
 * endpoint's remembered records are read again (the access version moves): an address
 * restriction applies from the next token on.
 */
export const changeApiClient = (
  orgId: string,
  clientId: string,
  changes: ApiClientChanges,
  updatedBy: string,
  now = Date.now(),
  { byService = false }: { byService?: boolean } = {},
): Promise<ApiClientRecord> =>
  retryOnConcurrentChange(async () => {
    const client = await getApiClient(clientId);
    if (client?.organizationId !== orgId) throw clientNotFound(clientId)();
    // The service itself puts the console's application back as it registers it.
    if (!byService) refuseConsoleClient(client);
    const problem = changeProblem(client, changes);
    if (problem) {
      throw new InvalidReference(problem.message, [
        { message: problem.message, field: problem.field, rejectedValue: changes[problem.field] },
      ]);
    }
    refuseUnusableKeys(changes.jwks);
    const given: Record<string, unknown> = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    );
    const updated: ApiClientRecord = {
      ...client,
      ...given,
      lastModifiedBy: updatedBy,
      lastModifiedDate: now,
    };
    await transact([
      ...(await changeWrites(client, updated, given, now)),
      ...(changes.redirectUris
        ? browserOriginChanges(clientId, client.redirectUris, changes.redirectUris)
        : []),
      accessVersionBump(orgId),
    ]);
    return updated;
  });

/**
 * Operators (local bootstrap, CLI): replace the secret or roles outright, without a grace period.
 * Roles and policies may be taken away: the organization's access version moves with the change.
 * Read first, then written with its record on condition that nobody changed the client meanwhile
 * (the actor is the scope's: the system for the local bootstrap).
 */
export const updateApiClient = (
  orgId: string,
  clientId: string,
  changes: Partial<Pick<ApiClientRecord, 'name' | 'clientSecret' | 'roles' | 'policies'>>,
  updatedBy: string,
  now = Date.now(),
): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const client = await getApiClient(clientId);
    if (client?.organizationId !== orgId) throw clientNotFound(clientId)();
    if (changes.clientSecret && !hasSecret(client)) throw new Conflict('API client', NO_SECRET);
    const given: Record<string, unknown> = Object.fromEntries(
      Object.entries({ ...changes, ...(changes.clientSecret ? { secretIssuedAt: now } : {}) }).filter(
        ([, value]) => value !== undefined,
      ),
    );
    // A secret replaced outright leaves no previous one working.
    const { previousSecret: _secret, previousSecretExpiresAt: _expires, ...current } = client;
    const updated: ApiClientRecord = {
      ...(changes.clientSecret ? current : client),
      ...given,
      lastModifiedBy: updatedBy,
      lastModifiedDate: now,
    };
    await transact([
      ...(await changeWrites(client, updated, given, now, {
        remove: changes.clientSecret ? ['previousSecret', 'previousSecretExpiresAt'] : [],
      })),
      accessVersionBump(orgId),
    ]);
  });

/**
 * Deletes a client: it stops authenticating (within a second at the token endpoint), leaves the
 * listing, and tokens it holds are refused within the principal-status cache time. The item
 * stays, marked, for history.
 */
export const deleteApiClient = async (
  orgId: string,
  clientId: string,
  deletedBy: string,
  now = Date.now(),
) => {
  const client = await getApiClient(clientId);
  if (!client || client.organizationId !== orgId) throw clientNotFound(clientId)();
  refuseConsoleClient(client);
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'client.deleted',
        targets: [clientTarget(client)],
        changes: { deleted: { from: false, to: true } },
      },
      now,
    )),
    update(
      keys.apiClient(clientId),
      {
        update:
          'SET deleted = :true, lastModifiedBy = :by, lastModifiedDate = :now REMOVE #listedIn, #listedAt',
        condition: `attribute_exists(pk) AND ${NOT_DELETED}`,
        names: {
          '#listedIn': TABLE_SCHEMA.indexes[0].partitionKey,
          '#listedAt': TABLE_SCHEMA.indexes[0].sortKey,
        },
        values: { ':true': true, ':false': false, ':by': deletedBy, ':now': now },
      },
      clientNotFound(clientId),
    ),
    bucketCountDelta(orgId, LISTINGS.clients, client.sequence, -1),
    ...browserOriginRemovals(client),
    // The token endpoint stops using the client's record it remembers.
    accessVersionBump(orgId),
  ]);
};
