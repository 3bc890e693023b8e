import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PluginAction } from '../domain/effective-permissions.js';
import { conflict, notFound } from '../http/errors.js';
import { archive } from './archive.js';
import { db, isConditionalCheckFailure, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { bucketCountDelta, LISTING_SORT_KEY, nextSequence, readPage } from './sequenced-listing.js';
import {
  ConcurrentChange,
  guardPut,
  IS_LIVE,
  retryOnConcurrentChange,
  transactWrite,
} from './transactions.js';

/** A plugin permission a role holds: the definition's id, with what tokens and responses show. */
export interface PluginGrant extends PluginAction {
  id: string;
}

export interface RoleRecord {
  id: string;
  organizationId: string;
  name: string;
  /** Stored as a string set (absent when empty), so assign and revoke are atomic ADD/DELETE. */
  permissions: string[];
  /** pluginId -> granted permission definitions. */
  pluginPermissions: Record<string, PluginGrant[]>;
  archived: boolean;
  sequence: number;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  /** Guards the read-modify-write of plugin permissions. */
  version: number;
}

const permissionSet = (permissions: readonly string[]) =>
  permissions.length > 0 ? { permissions: new Set(permissions) } : {};

/** What a role or managed role item grants (roles store a string set, managed roles a list). */
export const roleGrantOf = (item: Record<string, unknown>) => ({
  permissions: [...((item.permissions as Iterable<string> | undefined) ?? [])].sort(),
  pluginPermissions: (item.pluginPermissions as RoleRecord['pluginPermissions'] | undefined) ?? {},
  archived: item.archived === true,
});

export const toRoleRecord = (item: Record<string, unknown>): RoleRecord => ({
  ...(item as unknown as RoleRecord),
  ...roleGrantOf(item),
  version: Number(item.version ?? 0),
});

/**
 * Creates a role: the item (listed in creation order), its name guard (unique among roles that
 * are not archived, any case: 409) and the listing count, in one transaction.
 */
export const createRole = async (
  input: {
    organizationId: string;
    name: string;
    permissions: readonly string[];
    createdBy: string;
    id?: string;
  },
  now = Date.now(),
): Promise<RoleRecord> => {
  const sequence = await nextSequence(input.organizationId, 'roleSequence');
  const role: RoleRecord = {
    id: input.id ?? randomUUID(),
    organizationId: input.organizationId,
    name: input.name,
    permissions: [...new Set(input.permissions)].sort(),
    pluginPermissions: {},
    archived: false,
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    version: 1,
  };
  const { permissions, ...attributes } = role;
  await transactWrite(
    [
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.role(role.organizationId, role.id),
            ...attributes,
            ...permissionSet(permissions),
            [LISTING_SORT_KEY]: keys.listingEntry(keys.roleListing, sequence),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      guardPut(tableName(), keys.roleNameGuard(role.organizationId, role.name), { roleId: role.id }),
      bucketCountDelta(role.organizationId, keys.roleListing, sequence, 1),
    ],
    (index) =>
      index === 0
        ? conflict('A role with this id already exists')
        : conflict('A role with this name already exists'),
  );
  return role;
};

/** One page of the roles that are not archived, oldest first. */
export const listRoles = async (orgId: string, page: number, pageSize: number) => {
  const { items, hasMore } = await readPage(orgId, keys.roleListing, page, pageSize);
  return { roles: items.map(toRoleRecord), hasMore };
};

/** The role unless it is unknown or archived (404 either way). */
export const requireRole = async (orgId: string, roleId: string): Promise<RoleRecord> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.role(orgId, roleId), ConsistentRead: true }),
  );
  if (!Item || Item.archived === true) throw notFound('Role');
  return toRoleRecord(Item);
};

/** `permissions` is a DynamoDB reserved word. */
const PERMISSIONS_NAME = { '#permissions': 'permissions' };

const updateLiveRole = async (
  orgId: string,
  roleId: string,
  update: {
    expression: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    condition?: string;
  },
  onConditionFailed: () => Error = () => notFound('Role'),
  now = Date.now(),
) => {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.role(orgId, roleId),
        UpdateExpression: update.expression,
        ConditionExpression: update.condition ?? IS_LIVE,
        ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
        ExpressionAttributeValues: { ':false': false, ':now': now, ...update.values },
      }),
    );
  } catch (error) {
    if (isConditionalCheckFailure(error)) throw onConditionFailed();
    throw error;
  }
};

/** Replaces the role's permissions (catalogue ids, checked by the caller). */
export const setRolePermissions = (orgId: string, roleId: string, permissions: readonly string[]) =>
  updateLiveRole(
    orgId,
    roleId,
    permissions.length > 0
      ? {
          expression: 'SET #permissions = :permissions, updatedAt = :now',
          names: PERMISSIONS_NAME,
          values: { ':permissions': new Set(permissions) },
        }
      : { expression: 'SET updatedAt = :now REMOVE #permissions', names: PERMISSIONS_NAME },
  );

/** Adds or removes permission ids atomically; repeating it changes nothing (idempotent). */
export const changeRolePermissions = async (
  orgId: string,
  roleId: string,
  permissionIds: readonly string[],
  operation: 'ADD' | 'DELETE',
): Promise<void> => {
  if (permissionIds.length === 0) {
    await requireRole(orgId, roleId);
    return;
  }
  await updateLiveRole(orgId, roleId, {
    expression: `SET updatedAt = :now ${operation} #permissions :ids`,
    names: PERMISSIONS_NAME,
    values: { ':ids': new Set(permissionIds) },
  });
};

/**
 * Replaces the role's grants of one plugin, if nobody changed the role since it was read
 * (`ConcurrentChange` otherwise: the caller reads again and retries).
 */
export const setRolePluginGrants = (role: RoleRecord, pluginId: string, grants: readonly PluginGrant[]) => {
  const remaining = { ...role.pluginPermissions };
  delete remaining[pluginId];
  return updateLiveRole(
    role.organizationId,
    role.id,
    {
      expression: 'SET pluginPermissions = :grants, updatedAt = :now, version = :next',
      // Roles written before versions existed read as version 0.
      condition: `${IS_LIVE} AND ${role.version === 0 ? 'attribute_not_exists(version)' : 'version = :version'}`,
      values: {
        ':grants': grants.length > 0 ? { ...remaining, [pluginId]: grants } : remaining,
        ...(role.version === 0 ? {} : { ':version': role.version }),
        ':next': role.version + 1,
      },
    },
    () => new ConcurrentChange(),
  );
};

/** Archives the role: unlisted, unreadable, its name free, its id hidden in references. */
export const archiveRole = (orgId: string, roleId: string): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const role = await requireRole(orgId, roleId);
    await archive(
      orgId,
      { key: keys.role(orgId, roleId), set: 'archivedRoleIds', id: roleId, label: 'Role' },
      { key: keys.roleNameGuard(orgId, role.name), idAttribute: 'roleId' },
      [bucketCountDelta(orgId, keys.roleListing, role.sequence, -1)],
    );
  });
