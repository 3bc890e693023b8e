import { randomUUID } from 'node:crypto';
import { type Changes, changesBetween } from '../audit/changes.js';
import type { AuditTarget } from '../audit/record.js';
import { pluginActionKey } from '../domain/effective-permissions.js';
import { Conflict, NotFound } from '../domain/errors.js';
import { MAX_PLUGIN_GRANTS_PER_ROLE } from '../domain/limits.js';
import { accessVersionBump } from './access-versions.js';
import { archive } from './archive.js';
import { auditWrites } from './audit-records.js';
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
} from './writes.js';

export type { PluginGrant, RoleRecord } from './entities.js';

const roleNotFound = (roleId: string) => () => new NotFound('Role', roleId);
const nameTaken = () => new Conflict('Role', 'A role with this name already exists');

export const roleNameGuard = (orgId: string, name: string, roleId: string) =>
  guard(RoleNameGuardEntity.key({ organizationId: orgId, name }), { roleId }, nameTaken);

/** A role as the audit log names it. */
const roleTarget = (role: Pick<RoleRecord, 'id' | 'name'>) => ({
  type: 'role',
  id: role.id,
  name: role.name,
});

/** What the record of a role's creation shows: the role without its store bookkeeping. */
const auditedRole = ({ organizationId: _org, sequence: _sequence, ...fields }: RoleRecord) => fields;

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
    ...(await auditWrites(
      {
        organizationId: role.organizationId,
        action: 'role.created',
        targets: [roleTarget(role)],
        changes: changesBetween(undefined, auditedRole(role)),
      },
      now,
    )),
    create(RoleEntity.item(role, role), () => new Conflict('Role', 'A role with this id already exists')),
    roleNameGuard(role.organizationId, role.name, role.id),
    bucketCountDelta(role.organizationId, LISTINGS.roles, sequence, 1),
  ]);
  return role;
};

/** One page of the roles that are not archived, oldest first. */
export const listRoles = async (orgId: string, page: number, pageSize: number, after?: number) => {
  const { items, hasMore, nextAfter } = await readPage(orgId, LISTINGS.roles, page, pageSize, RoleEntity, {
    after,
  });
  return { roles: items, hasMore, nextAfter };
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
 * Changes a role that is not archived, if nobody changed it since it was read (its version), with
 * the record of the change (`role.updated` with its `changes`). A change that takes permissions
 * away moves the organization's access version in the same transaction, so tokens stop using what
 * they cached about the role; one that only adds does not.
 */
const updateLiveRole = async (
  role: RoleRecord,
  change: {
    set?: string;
    remove?: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    removesAccess: boolean;
  },
  audit: { action: 'role.updated' | 'role.pluginPermissions.set'; targets: AuditTarget[]; changes: Changes },
  now = Date.now(),
): Promise<void> => {
  await transact([
    ...(await auditWrites({ organizationId: role.organizationId, ...audit }, now)),
    update(
      keys.role(role.organizationId, role.id),
      {
        update: [
          `SET ${[change.set, 'updatedAt = :now', 'version = :next'].filter(Boolean).join(', ')}`,
          change.remove && `REMOVE ${change.remove}`,
        ]
          .filter(Boolean)
          .join(' '),
        // Archived or changed since it was read: the caller reads again (and finds it gone).
        condition: `${IS_LIVE} AND version = :version`,
        names: change.names ?? {},
        values: {
          ':false': false,
          ':now': now,
          ':version': role.version,
          ':next': role.version + 1,
          ...change.values,
        },
      },
      concurrentChange,
    ),
    change.removesAccess && accessVersionBump(role.organizationId),
  ]);
};

/**
 * Gives the role the permissions `next` makes of those it holds (read-modify-write, retried on a
 * race); a change that changes nothing writes and records nothing.
 */
/** What a change adds to a role, as read for the write that makes it: the caller may refuse it. */
export type AddingCheck = (added: readonly string[]) => Promise<void>;

const changePermissions = (
  orgId: string,
  roleId: string,
  next: (held: ReadonlySet<string>) => ReadonlySet<string>,
  beforeAdding?: AddingCheck,
): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const role = await requireRole(orgId, roleId);
    const held = new Set(role.permissions ?? []);
    const permissions = new Set(next(held));
    // Checked at each try, against the role this write is conditioned on: a permission revoked
    // meanwhile is one a replacement listing it adds again.
    await beforeAdding?.([...permissions].filter((id) => !held.has(id)));
    const changes = changesBetween({ permissions: held }, { permissions });
    if (Object.keys(changes).length === 0) return;
    await updateLiveRole(
      role,
      permissions.size > 0
        ? {
            set: '#permissions = :permissions',
            names: PERMISSIONS_NAME,
            values: { ':permissions': permissions },
            removesAccess: [...held].some((id) => !permissions.has(id)),
          }
        : // DynamoDB stores no empty set.
          { remove: '#permissions', names: PERMISSIONS_NAME, removesAccess: true },
      { action: 'role.updated', targets: [roleTarget(role)], changes },
    );
  });

/** Replaces the role's permissions (ids of the catalogue); `beforeAdding` hears what that adds. */
export const setRolePermissions = async (
  orgId: string,
  roleId: string,
  requested: readonly string[],
  beforeAdding?: AddingCheck,
) => {
  await requireCataloguePermissions(requested, 'permissions');
  await changePermissions(orgId, roleId, () => new Set(requested), beforeAdding);
};

/**
 * Adds or removes permission ids; repeating it changes nothing (idempotent). Added ids must be in
 * the catalogue; removed ones need not (an id the catalogue dropped stays removable).
 */
export const changeRolePermissions = async (
  orgId: string,
  roleId: string,
  permissionIds: readonly string[],
  operation: 'ADD' | 'DELETE',
): Promise<void> => {
  if (operation === 'ADD') await requireCataloguePermissions(permissionIds, 'permissionIds');
  await changePermissions(orgId, roleId, (held) =>
    operation === 'ADD'
      ? new Set([...held, ...permissionIds])
      : new Set([...held].filter((id) => !permissionIds.includes(id))),
  );
};

/** A grant as a record shows it. */
const shownGrants = (grants: readonly PluginGrant[]) =>
  [...grants]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map(({ id, module, actionName }) => ({ id, module, actionName }));

/**
 * The role's grants of one plugin (own entries only: a plugin id may be any identifier, `constructor`
 * too, which a plain lookup would find on Object.prototype).
 */
export const pluginGrantsOf = (role: Pick<RoleRecord, 'pluginPermissions'>, pluginId: string) =>
  Object.hasOwn(role.pluginPermissions, pluginId) ? (role.pluginPermissions[pluginId] ?? []) : [];

/**
 * Replaces the role's grants of one plugin, if nobody changed the role since it was read
 * (`ConcurrentChange` otherwise: the caller reads again and retries); grants that are those held
 * already write and record nothing.
 */
export const setRolePluginGrants = async (
  role: RoleRecord,
  pluginId: string,
  grants: readonly PluginGrant[],
) => {
  const held = pluginGrantsOf(role, pluginId);
  const changes = changesBetween(
    { pluginPermissions: shownGrants(held) },
    { pluginPermissions: shownGrants(grants) },
  );
  if (Object.keys(changes).length === 0) return;
  const remaining = { ...role.pluginPermissions };
  delete remaining[pluginId];
  const total = Object.values(remaining).reduce((sum, others) => sum + others.length, grants.length);
  if (total > MAX_PLUGIN_GRANTS_PER_ROLE && grants.length > held.length) {
    throw new Conflict(
      'Role',
      `Role ${role.id} would hold ${total} plugin permissions; a role holds at most ${MAX_PLUGIN_GRANTS_PER_ROLE} across its plugins`,
    );
  }
  // Tokens carry plugin actions by module and name, not by definition id (which a redefined
  // plugin may point at another action): access is lost when an action is.
  const kept = new Set(grants.map(pluginActionKey));
  await updateLiveRole(
    role,
    {
      set: 'pluginPermissions = :grants',
      values: { ':grants': grants.length > 0 ? { ...remaining, [pluginId]: grants } : remaining },
      removesAccess: held.some((grant) => !kept.has(pluginActionKey(grant))),
    },
    {
      action: 'role.pluginPermissions.set',
      targets: [roleTarget(role), { type: 'plugin', id: pluginId }],
      changes,
    },
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
      [
        bucketCountDelta(orgId, LISTINGS.roles, role.sequence, -1),
        ...(await auditWrites({
          organizationId: orgId,
          action: 'role.archived',
          targets: [roleTarget(role)],
          changes: changesBetween({ archived: false }, { archived: true }),
        })),
      ],
    );
  });
