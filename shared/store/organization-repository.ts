import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitSettings } from '../domain/rate-limit.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { creationSortValue, keys } from './keys.js';

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
