import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../http/errors.js';
import { archive } from './archive.js';
import { db, tableName } from './dynamo.js';
import { keys, TABLE_SCHEMA } from './keys.js';
import { queryAll } from './query.js';
import { LISTING_SORT_KEY } from './sequenced-listing.js';
import {
  ConcurrentChange,
  guardPut,
  IS_LIVE,
  retryOnConcurrentChange,
  transactWrite,
} from './transactions.js';

export interface PolicyRecord {
  id: string;
  organizationId: string;
  name: string;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
}

const duplicateName = () => conflict('A policy with this name already exists');

const nameGuardPut = (orgId: string, name: string, policyId: string) =>
  guardPut(tableName(), keys.policyNameGuard(orgId, name), { policyId });

/** Creates a policy and its name guard (unique among policies that are not archived: 409). */
export const createPolicy = async (
  input: { organizationId: string; name: string; createdBy: string },
  now = Date.now(),
): Promise<PolicyRecord> => {
  const policy: PolicyRecord = {
    id: randomUUID(),
    ...input,
    archived: false,
    createdAt: now,
    updatedAt: now,
  };
  await transactWrite(
    [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.policy(policy.organizationId, policy.id),
            ...policy,
            [LISTING_SORT_KEY]: keys.policyListingEntry(now, policy.id),
          },
        },
      },
      nameGuardPut(policy.organizationId, policy.name, policy.id),
    ],
    duplicateName,
  );
  return policy;
};

/** Every policy that is not archived, oldest first: one Query of the listing (paged by DynamoDB only). */
export const listPolicies = async (orgId: string): Promise<PolicyRecord[]> =>
  (await queryAll({
    IndexName: TABLE_SCHEMA.localIndexes[0].name,
    KeyConditionExpression: 'pk = :pk AND begins_with(#listing, :prefix)',
    ExpressionAttributeNames: { '#listing': LISTING_SORT_KEY },
    ExpressionAttributeValues: {
      ':pk': keys.organizationPartition(orgId),
      ':prefix': keys.policyListingPrefix,
    },
    ConsistentRead: true,
  })) as unknown as PolicyRecord[];

export const requirePolicy = async (orgId: string, policyId: string): Promise<PolicyRecord> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.policy(orgId, policyId), ConsistentRead: true }),
  );
  if (!Item || Item.archived === true) throw notFound('Policy');
  return Item as PolicyRecord;
};

/** Renames the policy and moves its name guard in one transaction (409 when the name is taken). */
export const renamePolicy = (orgId: string, policyId: string, name: string, now = Date.now()) =>
  retryOnConcurrentChange(async () => {
    const policy = await requirePolicy(orgId, policyId);
    if (policy.name === name) return;
    const sameGuard = policy.name.toLowerCase() === name.toLowerCase();
    await transactWrite(
      [
        {
          Update: {
            TableName: tableName(),
            Key: keys.policy(orgId, policyId),
            UpdateExpression: 'SET #name = :name, updatedAt = :now',
            // The name read above is still the name: nobody renamed or archived it since.
            ConditionExpression: `#name = :previous AND ${IS_LIVE}`,
            ExpressionAttributeNames: { '#name': 'name' },
            ExpressionAttributeValues: {
              ':name': name,
              ':previous': policy.name,
              ':now': now,
              ':false': false,
            },
          },
        },
        ...(sameGuard
          ? []
          : [
              nameGuardPut(orgId, name, policyId),
              { Delete: { TableName: tableName(), Key: keys.policyNameGuard(orgId, policy.name) } },
            ]),
      ],
      (index) => (index === 0 ? new ConcurrentChange() : duplicateName()),
    );
  });

/** Archives the policy: unlisted, unreadable, its name free, its id hidden in references. */
export const archivePolicy = (orgId: string, policyId: string): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const policy = await requirePolicy(orgId, policyId);
    await archive(
      orgId,
      { key: keys.policy(orgId, policyId), set: 'archivedPolicyIds', id: policyId, label: 'Policy' },
      { key: keys.policyNameGuard(orgId, policy.name), idAttribute: 'policyId' },
    );
  });
