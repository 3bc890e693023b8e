import { changesBetween } from '../audit/changes.js';
import { type AuditSettings, DEFAULT_AUDIT_SETTINGS } from '../audit/settings.js';
import { changedAuditSettings } from '../domain/audit-settings-change.js';
import { NotFound, PreconditionFailed } from '../domain/errors.js';
import type { RateLimitSettings } from '../domain/rate-limit.js';
import type * as z from '../zod.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { ManagedRoleEntity, OrganizationEntity, RoleEntity } from './entities.js';
import { jointProjection } from './entity.js';
import { keys } from './keys.js';
import { queryDirectory } from './query.js';
import {
  ConcurrentChange,
  checkLive,
  concurrentChange,
  create,
  retryOnConcurrentChange,
  transact,
  update,
  type Write,
} from './writes.js';

type OrganizationRecord = z.output<typeof OrganizationEntity.attributes>;

/** An organization as operators create and see it (its counters and sets are the store's own). */
export type Organization = Pick<
  OrganizationRecord,
  'id' | 'name' | 'createdAt' | 'updatedAt' | 'mfaEnabled'
> &
  Partial<Pick<OrganizationRecord, 'createdBy' | 'rateLimit'>>;

const organizationNotFound = (orgId: string) => () => new NotFound('Organization', orgId);

const shown = ({
  id,
  name,
  createdAt,
  updatedAt,
  createdBy,
  mfaEnabled,
  rateLimit,
}: OrganizationRecord): Organization => ({
  id,
  name,
  createdAt,
  updatedAt,
  ...(createdBy ? { createdBy } : {}),
  mfaEnabled,
  ...(rateLimit ? { rateLimit } : {}),
});

/** An organization as the audit log names it. */
const organizationTarget = (organization: Pick<OrganizationRecord, 'id' | 'name'>) => ({
  type: 'organization',
  id: organization.id,
  name: organization.name,
});

/**
 * Creates the organization unless one with that id exists, with the first record of its audit
 * log (`organization.created`); answers whether it created it.
 */
export const createOrganization = async (organization: Organization): Promise<boolean> => {
  try {
    await transact([
      create(OrganizationEntity.item(organization, { ...organization }), () => new ConcurrentChange()),
      ...(await auditWrites(
        {
          organizationId: organization.id,
          action: 'organization.created',
          targets: [organizationTarget(organization)],
          changes: changesBetween(undefined, organization),
        },
        organization.createdAt,
      )),
    ]);
    return true;
  } catch (error) {
    if (error instanceof ConcurrentChange) return false;
    throw error;
  }
};

/** Every organization, oldest first (operators; a global index, so eventually consistent). */
export const listOrganizations = async (): Promise<Organization[]> =>
  (await queryDirectory(keys.organizationDirectory)).map((item) => shown(OrganizationEntity.decode(item)));

export const getOrganization = async (orgId: string): Promise<Organization | undefined> => {
  const organization = await OrganizationEntity.get({ id: orgId }, { consistent: false });
  return organization && shown(organization);
};

/** What an operator may change on an existing organization; what is left out stays as it is. */
export interface OrganizationSettings {
  rateLimit?: RateLimitSettings;
  mfaEnabled?: boolean;
}

/**
 * Sets the given settings of an existing organization (operators), with the record of the change,
 * and answers the organization as it is now; no other attribute of its item changes (besides
 * `updatedAt`). Read first, written on condition that nobody changed it since; settings it has
 * already change nothing and record nothing.
 */
export const updateOrganizationSettings = async (
  orgId: string,
  settings: OrganizationSettings,
  now = Date.now(),
): Promise<Organization> => {
  if (settings.rateLimit === undefined && settings.mfaEnabled === undefined) {
    throw new PreconditionFailed('No organization setting to change');
  }
  return retryOnConcurrentChange(async () => {
    const read = await OrganizationEntity.get({ id: orgId });
    if (!read) throw organizationNotFound(orgId)();
    const current = shown(read);
    const rateLimit = settings.rateLimit && {
      rate: settings.rateLimit.rate,
      burst: settings.rateLimit.burst,
    };
    const changed = {
      ...(rateLimit ? { rateLimit } : {}),
      ...(settings.mfaEnabled !== undefined ? { mfaEnabled: settings.mfaEnabled } : {}),
    };
    const changes = changesBetween(
      Object.fromEntries(Object.keys(changed).map((field) => [field, current[field as keyof Organization]])),
      changed,
    );
    if (Object.keys(changes).length === 0) return current;
    const assignments = ['updatedAt = :now'];
    const values: Record<string, unknown> = { ':now': now, ':read': read.updatedAt };
    for (const [field, value] of Object.entries(changed)) {
      assignments.push(`${field} = :${field}`);
      values[`:${field}`] = value;
    }
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'organization.updated',
          targets: [organizationTarget(read)],
          changes,
        },
        now,
      )),
      update(
        keys.organization(orgId),
        { update: `SET ${assignments.join(', ')}`, condition: 'updatedAt = :read', values },
        concurrentChange,
      ),
    ]);
    return { ...current, ...changed, updatedAt: now };
  });
};

const AUDIT_SETTINGS = OrganizationEntity.projection('id', 'name', 'audit');

/** The organization's audit settings (operators; the defaults unless it changed them). */
export const getAuditSettings = async (orgId: string): Promise<AuditSettings> => {
  const organization = await OrganizationEntity.getProjected({ id: orgId }, AUDIT_SETTINGS);
  if (!organization) throw organizationNotFound(orgId)();
  return organization.audit ?? DEFAULT_AUDIT_SETTINGS;
};

/**
 * Changes how long the organization's audit records are kept and over how many shards they are
 * spread (operators; shards only grow), with the record of the change; answers the settings now.
 * Services that run read an organization's settings again within a minute (audit-records.ts).
 */
export const updateAuditSettings = (
  orgId: string,
  change: Partial<AuditSettings>,
  now = Date.now(),
): Promise<AuditSettings> =>
  retryOnConcurrentChange(async () => {
    const organization = await OrganizationEntity.getProjected({ id: orgId }, AUDIT_SETTINGS);
    if (!organization) throw organizationNotFound(orgId)();
    const current = organization.audit ?? DEFAULT_AUDIT_SETTINGS;
    const next = changedAuditSettings(current, change);
    const changes = changesBetween(
      { 'audit.retentionDays': current.retentionDays, 'audit.shards': current.shards },
      { 'audit.retentionDays': next.retentionDays, 'audit.shards': next.shards },
    );
    if (Object.keys(changes).length === 0) return next;
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'organization.updated',
          targets: [organizationTarget(organization)],
          changes,
        },
        now,
      )),
      update(
        keys.organization(orgId),
        {
          update: 'SET audit = :audit, updatedAt = :now',
          // As read: the settings are replaced whole, so a concurrent change means read again.
          condition: organization.audit
            ? 'audit.retentionDays = :days AND audit.shards = :shards'
            : 'attribute_exists(pk) AND attribute_not_exists(audit)',
          values: {
            ':audit': next,
            ':now': now,
            ...(organization.audit ? { ':days': current.retentionDays, ':shards': current.shards } : {}),
          },
        },
        concurrentChange,
      ),
    ]);
    return next;
  });

const RATE_LIMIT = OrganizationEntity.projection('rateLimit');

/** Only the organization's rate-limit override (projected read). */
export const getRateLimitOverride = async (orgId: string): Promise<RateLimitSettings | undefined> =>
  (await OrganizationEntity.getProjected({ id: orgId }, RATE_LIMIT, { consistent: false }))?.rateLimit;

/** The role new users receive: a role (`isStandardRole`) or a managed role. */
export type DefaultRole = NonNullable<OrganizationRecord['defaultRole']>;

/**
 * The organization's default role, unless that role has been archived since: archiving a role
 * records it in the same item, so the two are always read together and agree.
 */
export const defaultRoleOf = (
  organization: Pick<OrganizationRecord, 'defaultRole' | 'archivedRoleIds'> | undefined,
): DefaultRole | undefined => {
  const defaultRole = organization?.defaultRole;
  if (!defaultRole || (defaultRole.isStandardRole && organization.archivedRoleIds?.has(defaultRole.roleId))) {
    return undefined;
  }
  return defaultRole;
};

/** What a new user holds: the organization's default role, a role of its own or a managed one. */
export const defaultGrants = (
  defaultRole: DefaultRole | undefined,
): { roles?: Set<string>; managedRoles?: Set<string> } => {
  if (!defaultRole) return {};
  return defaultRole.isStandardRole
    ? { roles: new Set([defaultRole.roleId]) }
    : { managedRoles: new Set([defaultRole.roleId]) };
};

const DEFAULT_ROLE = OrganizationEntity.projection('defaultRole', 'archivedRoleIds');

export const getDefaultRole = async (orgId: string): Promise<DefaultRole | undefined> =>
  defaultRoleOf(await OrganizationEntity.getProjected({ id: orgId }, DEFAULT_ROLE));

const DEFAULT_ROLE_SET = OrganizationEntity.projection('defaultRole');
const ROLE_NAME = RoleEntity.projection('name', 'archived');

/** The audit target of a default role: a role of the organization or a managed role. */
const defaultRoleTarget = (defaultRole: DefaultRole, name?: string) => ({
  type: defaultRole.isStandardRole ? 'role' : 'managedRole',
  id: defaultRole.roleId,
  ...(name ? { name } : {}),
});

const sameDefaultRole = (a: DefaultRole | undefined, b: DefaultRole | undefined) =>
  a?.roleId === b?.roleId && a?.isStandardRole === b?.isStandardRole;

/**
 * Stores `next` as the default role (none when undefined) if the stored one is still `previous`,
 * with the record of the change; `ConcurrentChange` otherwise (the caller reads again).
 */
const replaceDefaultRole = async (
  orgId: string,
  previous: DefaultRole | undefined,
  next: { defaultRole: DefaultRole; name?: string } | undefined,
  extra: Write | false,
  now: number,
) => {
  const values: Record<string, unknown> = { ':now': now };
  if (previous)
    Object.assign(values, { ':previousId': previous.roleId, ':previousStandard': previous.isStandardRole });
  if (next) values[':role'] = next.defaultRole;
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: next ? 'defaultRole.set' : 'defaultRole.cleared',
        targets: [
          { type: 'organization', id: orgId },
          ...(next ? [defaultRoleTarget(next.defaultRole, next.name)] : []),
          ...(previous ? [defaultRoleTarget(previous)] : []),
        ],
        changes: changesBetween({ defaultRole: previous }, { defaultRole: next?.defaultRole }),
      },
      now,
    )),
    update(
      keys.organization(orgId),
      {
        update: next
          ? 'SET defaultRole = :role, updatedAt = :now'
          : 'SET updatedAt = :now REMOVE defaultRole',
        condition: previous
          ? 'defaultRole.roleId = :previousId AND defaultRole.isStandardRole = :previousStandard'
          : 'attribute_not_exists(defaultRole)',
        values,
      },
      concurrentChange,
    ),
    extra,
  ]);
};

/**
 * Sets the default role: a role of the organization that is not archived, else a managed role of
 * that id (NotFound for neither). One BatchGet finds which, with the default role stored now;
 * setting a role checks it is still live in the same transaction that stores it. Setting the
 * default role it is already changes nothing.
 */
export const setDefaultRole = (orgId: string, roleId: string, now = Date.now()): Promise<DefaultRole> =>
  retryOnConcurrentChange(async () => {
    const roleKey = RoleEntity.key({ organizationId: orgId, id: roleId });
    const managedRoleKey = ManagedRoleEntity.key({ id: roleId });
    const organizationKey = OrganizationEntity.key({ id: orgId });
    const read = await batchGetByKey(
      [roleKey, managedRoleKey, organizationKey],
      jointProjection(ROLE_NAME, DEFAULT_ROLE_SET),
    );
    const roleItem = read.get(roleKey);
    const role = roleItem && ROLE_NAME.decode(roleItem);
    const organization = read.get(organizationKey);
    const previous = organization && DEFAULT_ROLE_SET.decode(organization).defaultRole;
    const roleNotFound = () => new NotFound('Role', roleId);
    const isStandardRole = Boolean(role && !role.archived);
    if (!isStandardRole && !read.get(managedRoleKey)) throw roleNotFound();
    const defaultRole = { roleId, isStandardRole };
    if (sameDefaultRole(previous, defaultRole)) return defaultRole;
    await replaceDefaultRole(
      orgId,
      previous,
      { defaultRole, ...(isStandardRole ? { name: role?.name } : {}) },
      isStandardRole && checkLive(roleKey, roleNotFound),
      now,
    );
    return defaultRole;
  });

/** New users receive no role from now on; clearing when none is set changes nothing. */
export const clearDefaultRole = (orgId: string, now = Date.now()): Promise<void> =>
  retryOnConcurrentChange(async () => {
    const previous = (await OrganizationEntity.getProjected({ id: orgId }, DEFAULT_ROLE_SET))?.defaultRole;
    if (!previous) return;
    await replaceDefaultRole(orgId, previous, undefined, false, now);
  });
