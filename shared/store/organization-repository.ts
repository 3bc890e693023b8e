import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitSettings } from '../domain/rate-limit.js';
import { badRequest, notFound } from '../http/errors.js';
import { batchGet } from './batch.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { creationSortValue, keys } from './keys.js';
import { queryDirectory } from './query.js';
import { liveTargetCheck, transactWrite } from './transactions.js';

export interface Organization {
  id: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  createdBy?: string;
  mfaEnabled: boolean;
  /** Overrides the default 10 + 10 requests per second. */
  rateLimit?: RateLimitSettings;
}

const toOrganization = (item: Record<string, unknown>): Organization => ({
  id: String(item.id),
  name: String(item.name),
  createdAt: Number(item.createdAt),
  updatedAt: Number(item.updatedAt),
  ...(item.createdBy ? { createdBy: String(item.createdBy) } : {}),
  mfaEnabled: item.mfaEnabled === true,
  ...(item.rateLimit ? { rateLimit: item.rateLimit as RateLimitSettings } : {}),
});

/** Creates the organization unless one with that id exists; answers whether it created it. */
export const createOrganization = async (organization: Organization): Promise<boolean> => {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.organization(organization.id),
          ...keys.organizationDirectory,
          gsi1sk: creationSortValue(organization.createdAt, organization.id),
          ...organization,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
};

/** Every organization, oldest first (operators; a global index, so eventually consistent). */
export const listOrganizations = async (): Promise<Organization[]> =>
  (await queryDirectory(keys.organizationDirectory)).map(toOrganization);

export const getOrganization = async (orgId: string): Promise<Organization | undefined> => {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.organization(orgId) }));
  return Item ? toOrganization(Item) : undefined;
};

/** Sets the organization's rate-limit override (operators; contracts with higher limits). */
export const setOrganizationRateLimit = async (
  orgId: string,
  rateLimit: RateLimitSettings,
): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: 'SET rateLimit = :rateLimit, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':rateLimit': rateLimit, ':now': Date.now() },
    }),
  );
};

/** What an operator may change on an existing organization; what is left out stays as it is. */
export interface OrganizationSettings {
  rateLimit?: RateLimitSettings;
  mfaEnabled?: boolean;
}

/**
 * Sets the given settings of an existing organization (operators) in one conditional write, and
 * answers the organization as it is now; no other attribute of its item changes (besides
 * `updatedAt`). "Organization <id> not found" (404) when there is none.
 */
export const updateOrganizationSettings = async (
  orgId: string,
  settings: OrganizationSettings,
  now = Date.now(),
): Promise<Organization> => {
  const assignments = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now };
  if (settings.rateLimit !== undefined) {
    assignments.push('rateLimit = :rateLimit');
    values[':rateLimit'] = { rate: settings.rateLimit.rate, burst: settings.rateLimit.burst };
  }
  if (settings.mfaEnabled !== undefined) {
    assignments.push('mfaEnabled = :mfaEnabled');
    values[':mfaEnabled'] = settings.mfaEnabled;
  }
  if (assignments.length === 1) throw badRequest('No organization setting to change');
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(orgId),
        UpdateExpression: `SET ${assignments.join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toOrganization(Attributes ?? {});
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound(`Organization ${orgId}`);
    throw error;
  }
};

/** Only the organization's rate-limit override (projected read). */
export const getRateLimitOverride = async (orgId: string): Promise<RateLimitSettings | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: 'rateLimit',
    }),
  );
  return Item?.rateLimit as RateLimitSettings | undefined;
};

/** The role new users receive: a role (`isStandardRole`) or a managed role. */
export interface DefaultRole {
  roleId: string;
  isStandardRole: boolean;
}

/**
 * The organization item's default role, unless that role has been archived since: archiving a
 * role records it in the same item, so the two are always read together and agree.
 */
export const defaultRoleOf = (
  organizationItem: Record<string, unknown> | undefined,
): DefaultRole | undefined => {
  const defaultRole = organizationItem?.defaultRole as DefaultRole | undefined;
  const archived = organizationItem?.archivedRoleIds as Set<string> | undefined;
  if (!defaultRole || (defaultRole.isStandardRole && archived?.has(defaultRole.roleId))) return undefined;
  return defaultRole;
};

export const getDefaultRole = async (orgId: string): Promise<DefaultRole | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: 'defaultRole, archivedRoleIds',
      ConsistentRead: true,
    }),
  );
  return defaultRoleOf(Item);
};

const setDefaultRoleItem = (orgId: string, defaultRole: DefaultRole | undefined, now: number) => ({
  TableName: tableName(),
  Key: keys.organization(orgId),
  UpdateExpression: defaultRole
    ? 'SET defaultRole = :role, updatedAt = :now'
    : 'SET updatedAt = :now REMOVE defaultRole',
  ExpressionAttributeValues: { ':now': now, ...(defaultRole ? { ':role': defaultRole } : {}) },
});

/**
 * Sets the default role: a role of the organization that is not archived, else a managed role of
 * that id (404 for neither). One BatchGet finds which; setting a role checks it is still live in
 * the same transaction that stores it.
 */
export const setDefaultRole = async (
  orgId: string,
  roleId: string,
  now = Date.now(),
): Promise<DefaultRole> => {
  const roleKey = keys.role(orgId, roleId);
  const items = await batchGet([roleKey, keys.managedRole(roleId)]);
  const role = items.find((item) => item.pk === roleKey.pk && item.sk === roleKey.sk);
  if (role && role.archived !== true) {
    const defaultRole = { roleId, isStandardRole: true };
    await transactWrite(
      [liveTargetCheck(tableName(), roleKey), { Update: setDefaultRoleItem(orgId, defaultRole, now) }],
      () => notFound('Role'),
    );
    return defaultRole;
  }
  if (!items.some((item) => item.pk === keys.managedRolePartition)) throw notFound('Role');
  const defaultRole = { roleId, isStandardRole: false };
  await db().send(new UpdateCommand(setDefaultRoleItem(orgId, defaultRole, now)));
  return defaultRole;
};

export const clearDefaultRole = async (orgId: string, now = Date.now()): Promise<void> => {
  await db().send(new UpdateCommand(setDefaultRoleItem(orgId, undefined, now)));
};
