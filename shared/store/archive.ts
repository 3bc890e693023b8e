import { NotFound } from '../domain/errors.js';
import { accessVersionBump } from './access-versions.js';
import { OrganizationEntity } from './entities.js';
import { type ItemKey, keys } from './keys.js';
import { concurrentChange, IS_LIVE, remove, transact, update, type Write } from './writes.js';

/**
 * Roles and policies are archived, never deleted. Archiving marks the item, takes it out of its
 * listing, frees its name and records the id in the organization's `archivedRoleIds` /
 * `archivedPolicyIds` sets, so that responses can hide references to it (users keep them for
 * history) with one read in parallel.
 */
export const archive = async (
  orgId: string,
  target: { entity: 'Role' | 'Policy'; key: ItemKey; id: string },
  nameGuard: { key: ItemKey; idAttribute: 'roleId' | 'policyId' },
  extra: readonly Write[] = [],
  now = Date.now(),
) => {
  await transact([
    update(
      target.key,
      {
        update: 'SET archived = :true, updatedAt = :now REMOVE #listing',
        condition: IS_LIVE,
        names: { '#listing': keys.listingSortKey },
        values: { ':true': true, ':false': false, ':now': now },
      },
      () => new NotFound(target.entity, target.id),
    ),
    target.entity === 'Role'
      ? update(keys.organization(orgId), {
          update: 'ADD archivedRoleIds :id',
          values: { ':id': new Set([target.id]) },
        })
      : update(keys.organization(orgId), {
          // The policy no longer counts against the organization's limit.
          update: 'ADD archivedPolicyIds :id, livePolicies :minusOne',
          values: { ':id': new Set([target.id]), ':minusOne': -1 },
        }),
    // The guard still names this item: nobody renamed it since the caller read the name.
    remove(
      nameGuard.key,
      { condition: '#owner = :id', names: { '#owner': nameGuard.idAttribute }, values: { ':id': target.id } },
      concurrentChange,
    ),
    // It grants nothing from now on: tokens stop using what they cached about it.
    accessVersionBump(orgId),
    ...extra,
  ]);
};

export interface ArchivedIds {
  roles: ReadonlySet<string>;
  policies: ReadonlySet<string>;
}

export const ARCHIVED = OrganizationEntity.projection('archivedRoleIds', 'archivedPolicyIds');

/** The archived ids of an organization item read with ARCHIVED (none when there is no item). */
export const archivedIdsOf = (organization: ReturnType<typeof ARCHIVED.decode> | undefined): ArchivedIds => ({
  roles: organization?.archivedRoleIds ?? new Set(),
  policies: organization?.archivedPolicyIds ?? new Set(),
});

/** The organization's archived role and policy ids (one GetItem, projected). */
export const archivedIds = async (orgId: string): Promise<ArchivedIds> =>
  archivedIdsOf(await OrganizationEntity.getProjected({ id: orgId }, ARCHIVED));

export const NO_ARCHIVED_IDS: ArchivedIds = { roles: new Set(), policies: new Set() };

/** The ids of a stored reference set that responses show: archived ones hidden, sorted. */
export const visibleIds = (
  ids: Iterable<string> | undefined,
  hidden: ReadonlySet<string> = new Set(),
): string[] => [...(ids ?? [])].filter((id) => !hidden.has(id)).sort();
