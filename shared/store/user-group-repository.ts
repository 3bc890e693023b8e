import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { conflict, notFound } from '../http/errors.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { bucketCountDelta, LISTING_SORT_KEY, nextSequence, readPage } from './sequenced-listing.js';
import {
  ConcurrentChange,
  liveTargetCheck,
  retryOnConcurrentChange,
  type TransactItems,
  transactWrite,
} from './transactions.js';

export const GROUP_LISTING = 'GROUP';

export interface UserGroupRecord {
  id: string;
  organizationId: string;
  name: string;
  number?: string;
  description?: string;
  status: 'ACTIVE' | 'INACTIVE';
  roles?: Set<string>;
  managedRoles?: Set<string>;
  policies?: Set<string>;
  sequence: number;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string;
  version: number;
  /**
   * Set while a duplicate is still being filled (`COPYING`) or a delete is still removing members
   * (`DELETING`): such a group is invisible, grants nothing, and a repeated DELETE finishes it.
   */
  lifecycle?: 'COPYING' | 'DELETING';
}

export type GroupGrantField = 'roles' | 'managedRoles' | 'policies';

const isVisible = (group: UserGroupRecord | undefined): group is UserGroupRecord =>
  group !== undefined && group.lifecycle === undefined;

const nameGuard = (orgId: string, name: string) => keys.userGroupNameGuard(orgId, name);

/** The group becoming visible: listed, counted. Part of the creating (or copy-finishing) transaction. */
const visibilityItems = (group: UserGroupRecord, delta: 1 | -1): TransactItems => [
  bucketCountDelta(group.organizationId, GROUP_LISTING, group.sequence, delta),
  {
    Update: {
      TableName: tableName(),
      Key: keys.organization(group.organizationId),
      UpdateExpression: 'ADD userGroupCount :delta',
      ExpressionAttributeValues: { ':delta': delta },
    },
  },
];

const guardItems = (group: UserGroupRecord): TransactItems => [
  {
    Put: {
      TableName: tableName(),
      Item: { ...nameGuard(group.organizationId, group.name), groupId: group.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  ...(group.number
    ? [
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.userGroupNumberGuard(group.organizationId, group.number), groupId: group.id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]
    : []),
];

const duplicateName = () => conflict('A user group with this name already exists');
const duplicateNumber = () => conflict('A user group with this number already exists');

/** Creates a visible group: item, name and number guards, listing count and group count, atomically. */
export const createUserGroup = async (
  input: {
    organizationId: string;
    name: string;
    number?: string;
    description?: string;
    status?: 'ACTIVE' | 'INACTIVE';
    createdBy: string;
  },
  now = Date.now(),
): Promise<UserGroupRecord> => {
  const sequence = await nextSequence(input.organizationId, 'groupSequence');
  const group: UserGroupRecord = {
    id: randomUUID(),
    organizationId: input.organizationId,
    name: input.name,
    ...(input.number ? { number: input.number } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    status: input.status ?? 'ACTIVE',
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    updatedBy: input.createdBy,
    version: 1,
  };
  await transactWrite(
    [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.userGroup(group.organizationId, group.id),
            ...group,
            [LISTING_SORT_KEY]: keys.listingEntry(GROUP_LISTING, sequence),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...guardItems(group),
      ...visibilityItems(group, 1),
    ],
    (index) => (index === 1 ? duplicateName() : duplicateNumber()),
  );
  return group;
};

export const getUserGroup = async (orgId: string, groupId: string): Promise<UserGroupRecord | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.userGroup(orgId, groupId), ConsistentRead: true }),
  );
  return Item as UserGroupRecord | undefined;
};

export const requireUserGroup = async (orgId: string, groupId: string): Promise<UserGroupRecord> => {
  const group = await getUserGroup(orgId, groupId);
  if (!isVisible(group)) throw notFound('User group');
  return group;
};

export const listUserGroups = async (orgId: string, page: number, pageSize: number) => {
  const { items, hasMore } = await readPage(orgId, GROUP_LISTING, page, pageSize);
  return { groups: items as unknown as UserGroupRecord[], hasMore };
};

/** The maintained count (changed in the same transactions that create and delete groups). */
export const countUserGroups = async (orgId: string): Promise<number> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      ProjectionExpression: 'userGroupCount',
      ConsistentRead: true,
    }),
  );
  return Number(Item?.userGroupCount ?? 0);
};

/** Changes the given fields; a new name or number moves its guard in the same transaction. */
export const updateUserGroup = (
  orgId: string,
  groupId: string,
  changes: { name?: string; number?: string; description?: string; status?: 'ACTIVE' | 'INACTIVE' },
  updatedBy: string,
  now = Date.now(),
): Promise<UserGroupRecord> =>
  retryOnConcurrentChange(async () => {
    const current = await requireUserGroup(orgId, groupId);
    const next: UserGroupRecord = {
      ...current,
      ...changes,
      updatedAt: now,
      updatedBy,
      version: current.version + 1,
    };
    const items: TransactItems = [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.userGroup(orgId, groupId),
            ...next,
            [LISTING_SORT_KEY]: keys.listingEntry(GROUP_LISTING, next.sequence),
          },
          ConditionExpression: 'version = :version AND attribute_not_exists(lifecycle)',
          ExpressionAttributeValues: { ':version': current.version },
        },
      },
    ];
    const failures: (() => Error)[] = [() => new ConcurrentChange()];
    if (next.name.toLowerCase() !== current.name.toLowerCase()) {
      items.push(
        {
          Put: {
            TableName: tableName(),
            Item: { ...nameGuard(orgId, next.name), groupId },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Delete: { TableName: tableName(), Key: nameGuard(orgId, current.name) } },
      );
      failures.push(duplicateName, () => new ConcurrentChange());
    }
    if (next.number !== current.number && next.number) {
      items.push({
        Put: {
          TableName: tableName(),
          Item: { ...keys.userGroupNumberGuard(orgId, next.number), groupId },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      failures.push(duplicateNumber);
      if (current.number) {
        items.push({
          Delete: { TableName: tableName(), Key: keys.userGroupNumberGuard(orgId, current.number) },
        });
        failures.push(() => new ConcurrentChange());
      }
    }
    await transactWrite(items, (index) => (failures[index] ?? (() => new ConcurrentChange()))());
    return next;
  });

/**
 * Assigns (ADD) or unassigns (DELETE) a role, managed role or policy. Either way the target must be
 * live in the organization (404 naming it); the check and the atomic set change are one transaction.
 */
export const changeUserGroupGrant = async (
  orgId: string,
  groupId: string,
  target: { field: GroupGrantField; id: string; key: { pk: string; sk: string }; label: string },
  operation: 'ADD' | 'DELETE',
  updatedBy: string,
  now = Date.now(),
): Promise<void> => {
  await transactWrite(
    [
      liveTargetCheck(tableName(), target.key),
      {
        Update: {
          TableName: tableName(),
          Key: keys.userGroup(orgId, groupId),
          // The version moves too, so a concurrent PATCH (guarded by it) cannot write old sets back.
          UpdateExpression:
            operation === 'ADD'
              ? 'ADD #field :value, version :one SET updatedAt = :now, updatedBy = :by'
              : 'DELETE #field :value ADD version :one SET updatedAt = :now, updatedBy = :by',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(lifecycle)',
          ExpressionAttributeNames: { '#field': target.field },
          ExpressionAttributeValues: {
            ':value': new Set([target.id]),
            ':one': 1,
            ':now': now,
            ':by': updatedBy,
          },
        },
      },
    ],
    (index) => notFound(index === 0 ? target.label : 'User group'),
  );
};

/** Member ids of a group (one strongly consistent Query per 1 MB of membership items). */
export const memberIdsOf = async (orgId: string, groupId: string): Promise<string[]> =>
  (
    await queryPartition(keys.organizationPartition(orgId), keys.groupMemberPrefix(groupId), {
      consistent: true,
    })
  ).map((item) => String(item.userId));

/** Lower-cased names taken that start like `name` (one Query on the name guards). */
export const takenNamesStartingWith = async (orgId: string, name: string): Promise<Set<string>> =>
  new Set(
    (await queryPartition(keys.organizationPartition(orgId), nameGuard(orgId, name).sk)).map((item) =>
      String(item.sk).slice(keys.userGroupNamePrefix.length),
    ),
  );

export { guardItems, isVisible, visibilityItems };
