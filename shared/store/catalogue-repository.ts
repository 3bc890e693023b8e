import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PluginAction } from '../domain/effective-permissions.js';
import {
  type CataloguePermission,
  MANAGED_ROLES,
  PERMISSION_CATALOGUE,
} from '../domain/permission-catalogue.js';
import { badRequest } from '../http/errors.js';
import { batchPut } from './batch.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';

export interface StoredPermission extends CataloguePermission {
  createdAt: number;
}

export interface ManagedRoleRecord {
  id: string;
  permissions: string[];
  /** pluginId -> granted actions */
  pluginPermissions: Record<string, PluginAction[]>;
  createdAt: number;
  updatedAt: number;
}

/**
 * Writes the permission catalogue and the managed roles. Idempotent: rerunning it keeps the
 * creation dates of what exists and adds what the code added since.
 */
export const seedSystemData = async (now = Date.now()): Promise<void> => {
  const [existingPermissions, existingManagedRoles] = await Promise.all([
    listPermissions(),
    listManagedRoles(),
  ]);
  const permissionCreatedAt = new Map(existingPermissions.map((p) => [p.id, p.createdAt]));
  const managedRoleCreatedAt = new Map(existingManagedRoles.map((r) => [r.id, r.createdAt]));
  await batchPut([
    ...PERMISSION_CATALOGUE.map((permission) => ({
      ...keys.permission(permission.id),
      ...permission,
      createdAt: permissionCreatedAt.get(permission.id) ?? now,
    })),
    ...MANAGED_ROLES.map((role) => ({
      ...keys.managedRole(role.id),
      id: role.id,
      permissions: role.permissions,
      pluginPermissions: {},
      createdAt: managedRoleCreatedAt.get(role.id) ?? now,
      updatedAt: now,
    })),
  ]);
};

/** The whole catalogue (a few dozen items: one Query), oldest first. */
export const listPermissions = async (): Promise<StoredPermission[]> =>
  ((await queryPartition(keys.permissionPartition)) as unknown as StoredPermission[]).sort(
    (a, b) => a.createdAt - b.createdAt || a.position - b.position,
  );

export const getPermission = async (permissionId: string): Promise<StoredPermission | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.permission(permissionId) }),
  );
  return Item as StoredPermission | undefined;
};

export const listManagedRoles = async (): Promise<ManagedRoleRecord[]> =>
  ((await queryPartition(keys.managedRolePartition)) as unknown as ManagedRoleRecord[]).sort(
    (a, b) => a.createdAt - b.createdAt,
  );

export const getManagedRole = async (managedRoleId: string): Promise<ManagedRoleRecord | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.managedRole(managedRoleId) }),
  );
  return Item as ManagedRoleRecord | undefined;
};

/**
 * Operators: defines or redefines a managed role beyond the built-in ones (which every deploy
 * and every `npm start` rewrites from the code, so they are refused here).
 */
export const defineManagedRole = async (
  managedRoleId: string,
  permissionIds: readonly string[],
  now = Date.now(),
): Promise<ManagedRoleRecord> => {
  if (MANAGED_ROLES.some((role) => role.id === managedRoleId)) {
    throw badRequest(`${managedRoleId} is a built-in managed role; it is defined in the code`);
  }
  await requireCataloguePermissions(permissionIds, 'permissions');
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.managedRole(managedRoleId),
      UpdateExpression:
        'SET id = :id, #permissions = :permissions, pluginPermissions = if_not_exists(pluginPermissions, :none), ' +
        'createdAt = if_not_exists(createdAt, :now), updatedAt = :now',
      ExpressionAttributeNames: { '#permissions': 'permissions' },
      ExpressionAttributeValues: {
        ':id': managedRoleId,
        ':permissions': [...new Set(permissionIds)].sort(),
        ':none': {},
        ':now': now,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const { pk: _pk, sk: _sk, ...record } = Attributes ?? {};
  return record as unknown as ManagedRoleRecord;
};

const DEPENDENCY_CACHE_MILLIS = 5 * 60 * 1000;
let dependencyCache: { loadedAt: number; graph: Promise<Map<string, string[]>> } | undefined;

/** permissionId -> direct dependencies; cached per instance, the catalogue changes on deploys only. */
export const permissionDependencies = (now = Date.now()): Promise<Map<string, string[]>> => {
  if (!dependencyCache || now - dependencyCache.loadedAt > DEPENDENCY_CACHE_MILLIS) {
    const graph = listPermissions().then(
      (permissions) => new Map(permissions.map((permission) => [permission.id, permission.dependsOn ?? []])),
    );
    graph.catch(() => {
      dependencyCache = undefined;
    });
    dependencyCache = { loadedAt: now, graph };
  }
  return dependencyCache.graph;
};

/** Refuses permission ids the catalogue does not have (400, naming each by its position). */
export const requireCataloguePermissions = async (permissionIds: readonly string[], field: string) => {
  const catalogue = await permissionDependencies();
  const unknown = permissionIds.map((id, index) => ({ id, index })).filter(({ id }) => !catalogue.has(id));
  if (unknown.length > 0) {
    throw badRequest(
      'Unknown permission ids',
      unknown.map(({ id, index }) => ({
        message: 'No permission with this id exists',
        field: `${field}.${index}`,
        rejectedValue: id,
      })),
    );
  }
};
