import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { notFound, payloadTooLarge } from '../http/errors.js';

/** Keeps user items small: they are read on every page of the user list. */
const MAX_ADDITIONAL_PROPERTIES_BYTES = 16 * 1024;

import { batchGet } from './batch.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { type ItemKey, keys } from './keys.js';
import {
  ConcurrentChange,
  liveTargetCheck,
  retryOnConcurrentChange,
  type TransactItems,
  transactWrite,
} from './transactions.js';
import { requireUser, type UserRecord } from './user-repository.js';

/** The user's set-valued grants. ADD and DELETE on sets are atomic: concurrent grants never lose one. */
export type GrantField = 'roles' | 'managedRoles' | 'policies';

export interface GrantTarget {
  field: GrantField;
  id: string;
  /** The item that must exist (and not be archived) for a grant. */
  key: ItemKey;
  /** "Role", "Managed role", "Policy": what a 404 names. */
  label: string;
}

const addToUserSet = (orgId: string, userId: string, field: string, value: string) => ({
  Update: {
    TableName: tableName(),
    Key: keys.user(orgId, userId),
    UpdateExpression: 'ADD #field :value',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#field': field },
    ExpressionAttributeValues: { ':value': new Set([value]) },
  },
});

/** Grants the target: one transaction checks that it is live in the organization and adds it. */
export const grantToUser = async (orgId: string, userId: string, target: GrantTarget): Promise<void> => {
  await transactWrite(
    [liveTargetCheck(tableName(), target.key), addToUserSet(orgId, userId, target.field, target.id)],
    (index) => notFound(index === 0 ? target.label : 'User'),
  );
};

/** Revokes idempotently; the target need not exist any more (archived roles can be revoked). */
export const revokeFromUser = async (orgId: string, userId: string, field: GrantField, id: string) => {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.user(orgId, userId),
        UpdateExpression: 'DELETE #field :value',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#field': field },
        ExpressionAttributeValues: { ':value': new Set([id]) },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw notFound('User');
    throw error;
  }
};

/**
 * A role by name (case-insensitive) first, then by id; one BatchGet for both candidates. Archived
 * roles have no name any more; by id they are found only for revoking.
 */
export const resolveRoleId = async (
  orgId: string,
  roleNameOrId: string,
  options: { includeArchived?: boolean } = {},
): Promise<string> => {
  const byName = keys.roleNameGuard(orgId, roleNameOrId);
  const byId = keys.role(orgId, roleNameOrId);
  const items = await batchGet([byName, byId]);
  const guard = items.find((item) => item.sk === byName.sk);
  if (guard?.roleId) return String(guard.roleId);
  const role = items.find((item) => item.sk === byId.sk);
  if (role && (role.archived !== true || options.includeArchived)) return String(role.id);
  throw notFound('Role');
};

/** Group membership is written on both sides in one transaction, so they never disagree. */
export const addUserToGroup = async (orgId: string, userId: string, groupId: string, now = Date.now()) => {
  await transactWrite(
    [
      {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.userGroup(orgId, groupId),
          // A group being copied or deleted takes no new members.
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(lifecycle)',
        },
      },
      addToUserSet(orgId, userId, 'userGroups', groupId),
      {
        Put: {
          TableName: tableName(),
          Item: { ...keys.groupMember(orgId, groupId, userId), userId, groupId, addedAt: now },
        },
      },
    ],
    (index) => notFound(index === 0 ? 'User group' : 'User'),
  );
};

export const removeUserFromGroup = async (orgId: string, userId: string, groupId: string) => {
  await transactWrite(
    [
      {
        Update: {
          TableName: tableName(),
          Key: keys.user(orgId, userId),
          UpdateExpression: 'DELETE userGroups :group',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':group': new Set([groupId]) },
        },
      },
      { Delete: { TableName: tableName(), Key: keys.groupMember(orgId, groupId, userId) } },
    ],
    () => notFound('User'),
  );
};

const propertyCount = (orgId: string, name: string, delta: number) => ({
  Update: {
    TableName: tableName(),
    Key: keys.userPropertyName(orgId, name),
    UpdateExpression: 'ADD #count :delta',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':delta': delta },
  },
});

/**
 * Sets or removes additional properties. The user's version guards the read-modify-write, so
 * the per-name usage counts behind `GET /additionalUserProperties` stay exact.
 */
export const changeAdditionalProperties = async (
  orgId: string,
  userId: string,
  change: { set?: Record<string, unknown>; remove?: string[] },
  now = Date.now(),
): Promise<void> => {
  await retryOnConcurrentChange(async () => {
    const user: UserRecord = await requireUser(orgId, userId, true);
    const current = { ...(user.additionalProperties ?? {}) };
    const added = Object.keys(change.set ?? {}).filter((name) => !Object.hasOwn(current, name));
    const removed = [...new Set(change.remove ?? [])].filter((name) => Object.hasOwn(current, name));
    const next = { ...current, ...(change.set ?? {}) };
    for (const name of removed) delete next[name];
    if (Buffer.byteLength(JSON.stringify(next)) > MAX_ADDITIONAL_PROPERTIES_BYTES) {
      throw payloadTooLarge("A user's additional properties may take at most 16 KiB");
    }
    const items: TransactItems = [
      {
        Update: {
          TableName: tableName(),
          Key: keys.user(orgId, userId),
          UpdateExpression: 'SET additionalProperties = :next, updatedAt = :now, version = version + :one',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':next': next, ':now': now, ':one': 1, ':version': user.version },
        },
      },
      ...added.map((name) => propertyCount(orgId, name, 1)),
      ...removed.map((name) => propertyCount(orgId, name, -1)),
    ];
    await transactWrite(items, () => new ConcurrentChange());
  });
};
