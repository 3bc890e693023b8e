import { randomUUID } from 'node:crypto';
import { Conflict, NotFound } from '../domain/errors.js';
import { accessVersionBump } from './access-versions.js';
import { archive } from './archive.js';
import { requireCataloguePermissions } from './catalogue-repository.js';
import { type PluginGrant, RoleEntity, RoleNameGuardEntity, type RoleRecord } from './entities.js';
import { keys, LISTINGS } from './keys.js';
import { bucketCountDelta, nextSequence, readPage } from './sequenced-listing.js';
import {
  concurrentChange,
  create,
  guard,
  IS_LIVE,
  retryOnConcurrentChange,
  transact,
  update,
  writeOne,
} from './writes.js';

export type { PluginGrant, RoleRecord } from './entities.js';

const roleNotFound = (roleId: string) => () => new NotFound('Role', roleId);
const nameTaken = () => new Conflict('Role', 'A role with this name already exists');

export const roleNameGuard = (orgId: string, name: string, roleId: string) =>
  guard(RoleNameGuardEntity.key({ organizationId: orgId, name }), { roleId }, nameTaken);

/**
 * Creates a role: the item (listed in creation order), its name guard (unique among roles that
 * are not archived, any case: a conflict) and the listing count, in one transaction. Permission
 * ids must be in the catalogue.
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
  await requireCataloguePermissions(input.permissions, 'permissions');
  const { sequence } = await nextSequence(input.organizationId, 'roleSequence');
  const role: RoleRecord = {
    id: input.id ?? randomUUID(),
    organizationId: input.organizationId,
    name: input.name,
    ...(input.permissions.length > 0 ? { permissions: new Set(input.permissions) } : {}),
    pluginPermissions: {},
    archived: false,
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    version: 1,
  };
  await transact([
    create(RoleEntity.item(role, role), () => new Conflict('Role', 'A role with this id already exists')),
    roleNameGuard(role.organizationId, role.name, role.id),
    bucketCountDelta(role.organizationId, LISTINGS.roles, sequence, 1),
  ]);
  return role;
};

/** One page of the roles that are not archived, oldest first. */
export const listRoles = async (orgId: string, page: number, pageSize: number) => {
  const { items, hasMore } = await readPage(orgId, LISTINGS.roles, page, pageSize, RoleEntity);
  return { roles: items, hasMore };
};

/** The role unless it is unknown or archived (NotFound either way). */
export const requireRole = async (orgId: string, roleId: string): Promise<RoleRecord> => {
  const role = await RoleEntity.get({ organizationId: orgId, id: roleId });
  if (!role || role.archived) throw roleNotFound(roleId)();
  return role;
};

/** `permissions` is a DynamoDB reserved word. */
const PERMISSIONS_NAME = { '#permissions': 'permissions' };

/**
 * Changes a role that is not archived. A change that may take permissions away moves the
 * organization's access version in the same transaction, so tokens stop using what they cached
 * about the role; one that only adds does not.
 */
const updateLiveRole = async (
  orgId: string,
  roleId: string,
  change: {
    update: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    condition?: string;
    mayRemove: boolean;
  },
  fails: () => Error = roleNotFound(roleId),
  now = Date.now(),
): Promise<void> => {
  const write = update(
    keys.role(orgId, roleId),
    {
      update: change.update,
      condition: change.condition ?? IS_LIVE,
      names: change.names ?? {},
      values: { ':false': false, ':now': now, ...change.values },
    },
    fails,
  );
  if (change.mayRemove) await transact([write, accessVersionBump(orgId)]);
  else await writeOne(write);
};

/** Replaces the role's permissions (ids of the catalogue). */
export const setRolePermissions = async (orgId: string, roleId: string, requested: readonly string[]) => {
  await requireCataloguePermissions(requested, 'permissions');
  const permissions = [...new Set(requested)];
  await updateLiveRole(
    orgId,
    roleId,
    // Replacing may drop any of the permissions held (unknown without a read).
    permissions.length > 0
      ? {
          update: 'SET #permissions = :permissions, updatedAt = :now',
          names: PERMISSIONS_NAME,
          values: { ':permissions': new Set(permissions) },
          mayRemove: true,
        }
      : { update: 'SET updatedAt = :now REMOVE #permissions', names: PERMISSIONS_NAME, mayRemove: true },
  );
};

/**
 * Adds or removes permission ids atomically; repeating it changes nothing (idempotent). Added ids
 * must be in the catalogue; removed ones need not (an id the catalogue dropped stays removable).
 */
export const changeRolePermissions = async (
  orgId: string,
  roleId: string,
  permissionIds: readonly string[],
  operation: 'ADD' | 'DELETE',
): Promise<void> => {
  if (operation === 'ADD') await requireCataloguePermissions(permissionIds, 'permissionIds');
  if (permissionIds.length === 0) {
    await requireRole(orgId, roleId);
    return;
  }
  await updateLiveRole(orgId, roleId, {
    update: `SET updatedAt = :now ${operation} #permissions :ids`,
    names: PERMISSIONS_NAME,
    values: { ':ids': new Set(permissionIds) },
    mayRemove: operation === 'DELETE',
  });
};

/**
 * Replaces the role's grants of one plugin, if nobody changed the role since it was read
 * (`ConcurrentChange` otherwise: the caller reads again and retries).
 */
export const setRolePluginGrants = async (
  role: RoleRecord,
  pluginId: string,
  grants: readonly PluginGrant[],
) => {
  const remaining = { ...role.pluginPermissions };
  delete remaining[pluginId];
  const kept = new Set(grants.map((grant) => grant.id));
  await updateLiveRole(
    role.organizationId,
    role.id,
    {
      update: 'SET pluginPermissions = :grants, updatedAt = :now, version = :next',
      condition: `${IS_LIVE} AND version = :version`,
      values: {
        ':grants': grants.length > 0 ? { ...remaining, [pluginId]: grants } : remaining,
        ':version': role.version,
        ':next': role.version + 1,
      },
      mayRemove: (role.pluginPermissions[pluginId] ?? []).some((grant) => !kept.has(grant.id)),
    },
    concurrentChange,
  );
};

/** Archives the role: unlisted, unreadable, its name free, its id hidden in references. */
export const archiveRole = (orgId: string, roleId: string): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const role = await requireRole(orgId, roleId);
    await archive(
      orgId,
      { entity: 'Role', key: keys.role(orgId, roleId), id: roleId },
      { key: RoleNameGuardEntity.key({ organizationId: orgId, name: role.name }), idAttribute: 'roleId' },
      [bucketCountDelta(orgId, LISTINGS.roles, role.sequence, -1)],
    );
  });
