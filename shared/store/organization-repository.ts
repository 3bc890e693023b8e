import { changesBetween } from '../audit/changes.js';
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
  writeOne,
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

/** Creates the organization unless one with that id exists; answers whether it created it. */
export const createOrganization = async (organization: Organization): Promise<boolean> => {
  try {
    await writeOne(
      create(OrganizationEntity.item(organization, { ...organization }), () => new ConcurrentChange()),
    );
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
 * Sets the given settings of an existing organization (operators) in one conditional write, and
 * answers the organization as it is now; no other attribute of its item changes (besides
 * `updatedAt`).
 */
export const updateOrganizationSettings = async (
  orgId: string,
  settings: OrganizationSettings,
  now = Date.now(),
): Promise<Organization> => {
  const assignments = ['updatedAt = :now'];
  const values: Record<string, unknown> = { ':now': now };
  if (settings.rateLimit !== undefined) {
    assignments.push('rateLimit = :rateLimit');
    values[':rateLimit'] = { rate: settings.rateLimit.rate, burst: settings.rateLimit.burst };
  }
  if (settings.mfaEnabled !== undefined) {
    assignments.push('mfaEnabled = :mfaEnabled');
    values[':mfaEnabled'] = settings.mfaEnabled;
  }
  if (assignments.length === 1) throw new PreconditionFailed('No organization setting to change');
  const item = await writeOne(
    update(
      keys.organization(orgId),
      { update: `SET ${assignments.join(', ')}`, condition: 'attribute_exists(pk)', values },
      organizationNotFound(orgId),
    ),
    { returnNew: true },
  );
  return shown(OrganizationEntity.decode(item ?? {}));
};

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
