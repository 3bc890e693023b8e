import { perStoreSettings } from '../config.js';
import { InvalidReference, PreconditionFailed } from '../domain/errors.js';
import { MAX_MANAGED_ROLES } from '../domain/limits.js';
import { MANAGED_ROLES, PERMISSION_CATALOGUE } from '../domain/permission-catalogue.js';
import type * as z from '../zod.js';
import {
  currentAccessVersions,
  systemAccessVersionBump,
  systemDataOutdated,
  systemVersionLastRead,
} from './access-versions.js';
import { batchPut } from './batch.js';
import { ManagedRoleEntity, PermissionEntity } from './entities.js';
import { keys } from './keys.js';
import { queryPartition } from './query.js';
import { transact, update, writeOne } from './writes.js';

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
  // After the data, so that a cache stamped with the new version holds it: permissions and
  // dependencies the code dropped stop reaching tokens (not one transaction: up to 25 items a batch).
  await writeOne(systemAccessVersionBump());
};

/** The whole catalogue (a few dozen items: one Query), oldest first. */
export const listPermissions = async (options: { consistent?: boolean } = {}): Promise<StoredPermission[]> =>
  (await queryPartition(keys.permissionPartition, undefined, options))
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
  await transact([
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
    // It may grant less than before: tokens stop using what they cached about it.
    systemAccessVersionBump(),
  ]);
  const stored = await ManagedRoleEntity.get({ id: managedRoleId });
  if (!stored) throw new Error(`Managed role ${managedRoleId} is missing right after it was written`);
  return stored;
};

const DEPENDENCY_CACHE_MILLIS = 5 * 60 * 1000;
/** The graph as last loaded, per store (the CLI and tests re-point it). */
const dependencies = perStoreSettings(() => ({
  cached: undefined as
    | { loadedAt: number; graph: Promise<Map<string, string[]>>; systemVersion: number | undefined }
    | undefined,
}));

/**
 * permissionId -> direct dependencies; cached per instance for 5 minutes (the catalogue changes on
 * deploys only). Given the system's access version read within the last second, a graph read
 * before that version's change is read again (shared/store/access-versions.ts).
 */
export const permissionDependencies = (
  now = Date.now(),
  systemVersion?: number,
): Promise<Map<string, string[]>> => {
  const state = dependencies();
  const { cached } = state;
  if (cached && !systemDataOutdated(cached, now, DEPENDENCY_CACHE_MILLIS, systemVersion)) return cached.graph;
  // Strongly consistent: a graph stamped with a version must hold what that version's change wrote.
  const graph = listPermissions({ consistent: true }).then(
    (permissions) => new Map(permissions.map((permission) => [permission.id, permission.dependsOn])),
  );
  // Stamped before the read starts: a change of system data after this version may be missing.
  const loading = { loadedAt: now, graph, systemVersion: systemVersionLastRead() };
  graph.catch(() => {
    if (state.cached === loading) state.cached = undefined;
  });
  state.cached = loading;
  return graph;
};

/**
 * The graph as a token of the organization needs it: read again when system data changed since
 * (the versions are read beside the cached graph, or beside its reload when it expired).
 */
export const currentPermissionDependencies = async (
  orgId: string,
  now = Date.now(),
): Promise<Map<string, string[]>> => {
  const [, versions] = await Promise.all([permissionDependencies(now), currentAccessVersions(orgId, now)]);
  return permissionDependencies(now, versions.system);
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
