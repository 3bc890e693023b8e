import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../http/errors.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { LISTING_SORT_KEY } from './sequenced-listing.js';
import { ConcurrentChange, IS_LIVE, type TransactItems, transactWrite } from './transactions.js';

/**
 * Roles and policies are archived, never deleted. Archiving marks the item, takes it out of its
 * listing, frees its name and records the id in the organization's `archivedRoleIds` /
 * `archivedPolicyIds` sets, so that responses can hide references to it (users keep them for history) with one read in parallel.
 */
export const archive = async (
  orgId: string,
  target: {
    key: { pk: string; sk: string };
    set: 'archivedRoleIds' | 'archivedPolicyIds';
    id: string;
    label: string;
  },
  nameGuard: { key: { pk: string; sk: string }; idAttribute: 'roleId' | 'policyId' },
  extra: TransactItems = [],
  now = Date.now(),
) => {
  await transactWrite(
    [
      {
        Update: {
          TableName: tableName(),
          Key: target.key,
          UpdateExpression: 'SET archived = :true, updatedAt = :now REMOVE #listing',
          ConditionExpression: IS_LIVE,
          ExpressionAttributeNames: { '#listing': LISTING_SORT_KEY },
          ExpressionAttributeValues: { ':true': true, ':false': false, ':now': now },
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.organization(orgId),
          UpdateExpression: 'ADD #set :id',
          ExpressionAttributeNames: { '#set': target.set },
          ExpressionAttributeValues: { ':id': new Set([target.id]) },
        },
      },
      {
        // The guard still names this item: nobody renamed it since the caller read the name.
        Delete: {
          TableName: tableName(),
          Key: nameGuard.key,
          ConditionExpression: '#owner = :id',
          ExpressionAttributeNames: { '#owner': nameGuard.idAttribute },
          ExpressionAttributeValues: { ':id': target.id },
        },
      },
      ...extra,
    ],
    (index) => (index === 0 ? notFound(target.label) : new ConcurrentChange()),
  );
};

export interface ArchivedIds {
  roles: ReadonlySet<string>;
  policies: ReadonlySet<string>;
}

/** The organization's archived role and policy ids (one GetItem, projected). */
export const archivedIds = async (orgId: string): Promise<ArchivedIds> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: 'archivedRoleIds, archivedPolicyIds',
      ConsistentRead: true,
    }),
  );
  return {
    roles: (Item?.archivedRoleIds as Set<string> | undefined) ?? new Set(),
    policies: (Item?.archivedPolicyIds as Set<string> | undefined) ?? new Set(),
  };
};

export const NO_ARCHIVED_IDS: ArchivedIds = { roles: new Set(), policies: new Set() };

/** The ids of a stored reference set that responses show: archived ones hidden, sorted. */
export const visibleIds = (ids: Set<string> | undefined, hidden: ReadonlySet<string> = new Set()): string[] =>
  [...(ids ?? [])].filter((id) => !hidden.has(id)).sort();
