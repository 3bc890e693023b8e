import type { z } from 'zod';
import { InvalidReference, PreconditionFailed } from '../domain/errors.js';
import { MAX_MANAGED_ROLES } from '../domain/limits.js';
import { MANAGED_ROLES, PERMISSION_CATALOGUE } from '../domain/permission-catalogue.js';
import { batchPut } from './batch.js';
import { ManagedRoleEntity, PermissionEntity } from './entities.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { update, writeOne } from './writes.js';

export type StoredPermission = z.output<typeof PermissionEntity.attributes>;
export type ManagedRoleRecord = z.output<typeof ManagedRoleEntity.attributes>;

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
    ...PERMISSION_CATALOGUE.map((permission) =>
      PermissionEntity.item(permission, {
        ...permission,
        createdAt: permissionCreatedAt.get(permission.id) ?? now,
      }),
    ),
    ...MANAGED_ROLES.map((role) =>
      ManagedRoleEntity.item(role, {
        id: role.id,
        permissions: [...role.permissions],
        pluginPermissions: {},
        createdAt: managedRoleCreatedAt.get(role.id) ?? now,
        updatedAt: now,
      }),
    ),
  ]);
};

/** The whole catalogue (a few dozen items: one Query), oldest first. */
export const listPermissions = async (): Promise<StoredPermission[]> =>
  (await queryPartition(keys.permissionPartition))
    .map(PermissionEntity.decode)
    .sort((a, b) => a.createdAt - b.createdAt || a.position - b.position);

export const getPermission = (permissionId: string): Promise<StoredPermission | undefined> =>
  PermissionEntity.get({ id: permissionId }, { consistent: false });

export const listManagedRoles = async (): Promise<ManagedRoleRecord[]> =>
  (await queryPartition(keys.managedRolePartition))
    .map(ManagedRoleEntity.decode)
    .sort((a, b) => a.createdAt - b.createdAt);

export const getManagedRole = (managedRoleId: string): Promise<ManagedRoleRecord | undefined> =>
  ManagedRoleEntity.get({ id: managedRoleId }, { consistent: false });

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
    throw new PreconditionFailed(`${managedRoleId} is a built-in managed role; it is defined in the code`);
  }
  const [existing] = await Promise.all([
    listManagedRoles(),
    requireCataloguePermissions(permissionIds, 'permissions'),
  ]);
  // Read, then written: only operators define managed roles (GET /managedRoles answers them at once).
  if (existing.length >= MAX_MANAGED_ROLES && !existing.some((role) => role.id === managedRoleId)) {
    throw new PreconditionFailed(
      `There are at most ${MAX_MANAGED_ROLES} managed roles; ${existing.length} exist`,
    );
  }
  const item = await writeOne(
    update(ManagedRoleEntity.key({ id: managedRoleId }), {
      update:
        'SET id = :id, #permissions = :permissions, pluginPermissions = if_not_exists(pluginPermissions, :none), ' +
        'createdAt = if_not_exists(createdAt, :now), updatedAt = :now',
      names: { '#permissions': 'permissions' },
      values: {
        ':id': managedRoleId,
        ':permissions': [...new Set(permissionIds)].sort(),
        ':none': {},
        ':now': now,
      },
    }),
    { returnNew: true },
  );
  return ManagedRoleEntity.decode(item ?? {});
};

const DEPENDENCY_CACHE_MILLIS = 5 * 60 * 1000;
let dependencyCache: { loadedAt: number; graph: Promise<Map<string, string[]>> } | undefined;

/** permissionId -> direct dependencies; cached per instance, the catalogue changes on deploys only. */
export const permissionDependencies = (now = Date.now()): Promise<Map<string, string[]>> => {
  if (!dependencyCache || now - dependencyCache.loadedAt > DEPENDENCY_CACHE_MILLIS) {
    const graph = listPermissions().then(
      (permissions) => new Map(permissions.map((permission) => [permission.id, permission.dependsOn])),
    );
    graph.catch(() => {
      dependencyCache = undefined;
    });
    dependencyCache = { loadedAt: now, graph };
  }
  return dependencyCache.graph;
};

/** Refuses permission ids the catalogue does not have, naming each by its position in `field`. */
export const requireCataloguePermissions = async (permissionIds: readonly string[], field: string) => {
  const catalogue = await permissionDependencies();
  const unknown = permissionIds.map((id, index) => ({ id, index })).filter(({ id }) => !catalogue.has(id));
  if (unknown.length > 0) {
    throw new InvalidReference(
      'Unknown permission ids',
      unknown.map(({ id, index }) => ({
        message: 'No permission with this id exists',
        field: `${field}.${index}`,
        rejectedValue: id,
      })),
    );
  }
};
