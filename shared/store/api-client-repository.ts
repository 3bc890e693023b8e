import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UserType } from '../api/route-definition.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { keys, TABLE_SCHEMA } from './keys.js';
import { bucketCountDelta, type ListingIndex, nextSequence, readPage } from './sequenced-listing.js';
import { liveTargetCheck, transactWrite } from './transactions.js';

export interface ApiClientRecord {
  id: string;
  organizationId: string;
  name: string;
  /** Stored as issued: the spec's client list returns it. The table is encrypted at rest. */
  clientSecret: string;
  /** The secret before the last rotation, accepted until `previousSecretExpiresAt` (ms). */
  previousSecret?: string;
  previousSecretExpiresAt?: number;
  /** When `clientSecret` was issued (ms): the `lastModifiedDate` of the answer that showed it. */
  secretIssuedAt?: number;
  clientType: UserType;
  roles: string[];
  policies: string[];
  createdBy: string;
  createdDate: number;
  lastModifiedBy: string;
  lastModifiedDate: number;
  /** Position in the organization's client listing. */
  sequence: number;
  deleted?: boolean;
}

export const newClientSecret = (): string => randomBytes(32).toString('base64url');

const CLIENT_LISTING = 'CLIENT';
const NOT_DELETED = '(attribute_not_exists(deleted) OR deleted = :false)';

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

/**
 * Registers a client: its item (listed in creation order) and the listing count, in one
 * transaction that also checks every role and policy is live in the organization (400 naming it).
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
  },
  now = Date.now(),
): Promise<ApiClientRecord> => {
  const orgId = input.organizationId;
  const roles = [...new Set(input.roles)].sort();
  const policies = [...new Set(input.policies)].sort();
  const sequence = await nextSequence(orgId, 'clientSequence');
  const client: ApiClientRecord = {
    id: input.id ?? randomUUID(),
    organizationId: orgId,
    name: input.name,
    clientSecret: input.clientSecret ?? newClientSecret(),
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
  await transactWrite(
    [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.apiClient(client.id),
            ...client,
            ...keys.apiClientDirectory(orgId),
            gsi1sk: keys.listingEntry(CLIENT_LISTING, sequence),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      bucketCountDelta(orgId, CLIENT_LISTING, sequence, 1),
      ...roles.map((id) => liveTargetCheck(tableName(), keys.role(orgId, id))),
      ...policies.map((id) => liveTargetCheck(tableName(), keys.policy(orgId, id))),
    ],
    (index) => {
      if (index === 0) return conflict('An API client with this id already exists');
      const [field, position] =
        index - 2 < roles.length ? ['roles', index - 2] : ['policies', index - 2 - roles.length];
      const rejectedValue = field === 'roles' ? roles[position] : policies[position];
      return badRequest(`Unknown ${field === 'roles' ? 'role' : 'policy'}`, [
        { message: 'Not a live one of this organization', field: `body.${field}`, rejectedValue },
      ]);
    },
  );
  return client;
};

export const listApiClients = async (orgId: string, page: number, pageSize: number) => {
  const { items, hasMore } = await readPage(orgId, CLIENT_LISTING, page, pageSize, [], clientListing(orgId));
  return { clients: items as unknown as ApiClientRecord[], hasMore };
};

/** Strongly consistent: a rotation or deletion counts at once at the token endpoint. */
export const getApiClient = async (clientId: string): Promise<ApiClientRecord | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.apiClient(clientId), ConsistentRead: true }),
  );
  return Item && isLiveClient(Item) ? (Item as ApiClientRecord) : undefined;
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

/** A deleted client keeps its item (for history) but no longer exists for anyone. */
export const isLiveClient = (item: Record<string, unknown>): boolean => item.deleted !== true;

/** The organization of a live client (projected read), for the per-request "still active?" check. */
export const liveClientOrganization = async (clientId: string): Promise<string | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.apiClient(clientId),
      ProjectionExpression: 'organizationId, deleted',
    }),
  );
  return Item && isLiveClient(Item) ? String(Item.organizationId) : undefined;
};

const updateLiveClient = async (
  orgId: string,
  clientId: string,
  update: { expression: string; values: Record<string, unknown>; names?: Record<string, string> },
): Promise<ApiClientRecord> => {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiClient(clientId),
        UpdateExpression: update.expression,
        // Another organization's client answers exactly like an unknown one.
        ConditionExpression: `attribute_exists(pk) AND organizationId = :org AND ${NOT_DELETED}`,
        ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
        ExpressionAttributeValues: { ':org': orgId, ':false': false, ...update.values },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as ApiClientRecord;
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound('API client');
    throw error;
  }
};

/** Issues a new secret; the previous one keeps working for `graceMillis`, then stops. */
export const rotateClientSecret = (
  orgId: string,
  clientId: string,
  rotatedBy: string,
  graceMillis: number,
  now = Date.now(),
): Promise<ApiClientRecord> =>
  updateLiveClient(orgId, clientId, {
    expression:
      'SET previousSecret = clientSecret, previousSecretExpiresAt = :expires, clientSecret = :secret, secretIssuedAt = :now, lastModifiedBy = :by, lastModifiedDate = :now',
    values: { ':expires': now + graceMillis, ':secret': newClientSecret(), ':by': rotatedBy, ':now': now },
  });

/** Operators (local bootstrap, CLI): replace the secret or roles outright, without a grace period. */
export const updateApiClient = (
  orgId: string,
  clientId: string,
  changes: Partial<Pick<ApiClientRecord, 'name' | 'clientSecret' | 'roles' | 'policies'>>,
  updatedBy: string,
  now = Date.now(),
): Promise<ApiClientRecord> => {
  const fields = Object.entries({
    ...changes,
    ...(changes.clientSecret ? { secretIssuedAt: now } : {}),
  }).filter(([, value]) => value !== undefined);
  return updateLiveClient(orgId, clientId, {
    expression: `SET ${[...fields.map(([field]) => `#${field} = :${field}`), 'lastModifiedBy = :by', 'lastModifiedDate = :now'].join(', ')}${changes.clientSecret ? ' REMOVE previousSecret, previousSecretExpiresAt' : ''}`,
    names: Object.fromEntries(fields.map(([field]) => [`#${field}`, field])),
    values: {
      ...Object.fromEntries(fields.map(([field, value]) => [`:${field}`, value])),
      ':by': updatedBy,
      ':now': now,
    },
  });
};

/**
 * Deletes a client: it stops authenticating at once, leaves the listing, and tokens it holds are
 * refused within the principal-status cache time. The item stays, marked, for history.
 */
export const deleteApiClient = async (
  orgId: string,
  clientId: string,
  deletedBy: string,
  now = Date.now(),
) => {
  const client = await getApiClient(clientId);
  if (!client || client.organizationId !== orgId) throw notFound('API client');
  await transactWrite(
    [
      {
        Update: {
          TableName: tableName(),
          Key: keys.apiClient(clientId),
          UpdateExpression:
            'SET deleted = :true, lastModifiedBy = :by, lastModifiedDate = :now REMOVE gsi1pk, gsi1sk',
          ConditionExpression: `attribute_exists(pk) AND ${NOT_DELETED}`,
          ExpressionAttributeValues: { ':true': true, ':false': false, ':by': deletedBy, ':now': now },
        },
      },
      bucketCountDelta(orgId, CLIENT_LISTING, client.sequence, -1),
    ],
    () => notFound('API client'),
  );
};
