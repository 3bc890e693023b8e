import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { notFound } from '../http/errors.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { type TransactItems, transactWrite } from './transactions.js';

/**
 * Roles and policies are archived, never deleted. Archiving marks the item, frees a role's name,
 * and records the id in the organization's `archivedRoleIds` / `archivedPolicyIds` sets, so that
 * responses can hide references to it (users keep them for history) with one read in parallel.
 */
const archive = async (
  orgId: string,
  target: {
    key: { pk: string; sk: string };
    set: 'archivedRoleIds' | 'archivedPolicyIds';
    id: string;
    label: string;
  },
  extra: TransactItems = [],
  now = Date.now(),
) => {
  await transactWrite(
    [
      {
        Update: {
          TableName: tableName(),
          Key: target.key,
          UpdateExpression: 'SET archived = :true, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND archived <> :true',
          ExpressionAttributeValues: { ':true': true, ':now': now },
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
      ...extra,
    ],
    () => notFound(target.label),
  );
};

export const archiveRole = async (orgId: string, roleId: string, roleName: string) =>
  archive(orgId, { key: keys.role(orgId, roleId), set: 'archivedRoleIds', id: roleId, label: 'Role' }, [
    { Delete: { TableName: tableName(), Key: keys.roleNameGuard(orgId, roleName) } },
  ]);

export const archivePolicy = async (orgId: string, policyId: string) =>
  archive(orgId, {
    key: keys.policy(orgId, policyId),
    set: 'archivedPolicyIds',
    id: policyId,
    label: 'Policy',
  });

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
