import { createHash } from 'node:crypto';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { visibleIds } from '../../shared/store/archive.js';
import { requireCataloguePermissions } from '../../shared/store/catalogue-repository.js';
import { createRole, type RoleRecord, requireRole } from '../../shared/store/role-repository.js';
import { resolveRoleId } from '../../shared/store/user-grants.js';

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((entry) => b.includes(entry));

/** The live role of that name (the same lookup that grants roles by name), if any. */
const roleNamedIn = (orgId: string, name: string): Promise<RoleRecord | undefined> =>
  resolveRoleId(orgId, name)
    .then((roleId) => requireRole(orgId, roleId))
    .catch((error) => (error instanceof NotFound ? undefined : Promise.reject(error)));

/** Roles someone changed by hand, whose names are skipped before giving up. */
const MAX_NAME_CANDIDATES = 20;

/**
 * A role of the organization holding exactly `permissionIds`, for `client create --permissions`.
 * Its name is derived from the set, so the same set reuses the same role. Should someone have
 * changed that role since, the next name (`… (2)`, `… (3)`) is tried instead of silently widening
 * or narrowing what the other clients of that role may do.
 */
export const roleHoldingExactly = async (
  orgId: string,
  permissionIds: readonly string[],
  createdBy: string,
): Promise<{ role: RoleRecord; created: boolean }> => {
  await requireCataloguePermissions(permissionIds, 'permissions');
  const wanted = [...new Set(permissionIds)].sort();
  const base = `CLI permissions ${createHash('sha256').update(wanted.join(',')).digest('hex').slice(0, 12)}`;
  for (let candidate = 1; candidate <= MAX_NAME_CANDIDATES; candidate++) {
    const name = candidate === 1 ? base : `${base} (${candidate})`;
    const existing = await roleNamedIn(orgId, name);
    if (!existing) {
      const role = await createRole({ organizationId: orgId, name, permissions: wanted, createdBy });
      return { role, created: true };
    }
    // Plugin permissions someone added count as a change too: the client would get them as well.
    const pluginGrants = Object.values(existing.pluginPermissions).some((grants) => grants.length > 0);
    if (!pluginGrants && sameSet(visibleIds(existing.permissions), wanted))
      return { role: existing, created: false };
  }
  throw new Conflict(
    'Role',
    `Every role named "${base}" … "(${MAX_NAME_CANDIDATES})" was changed by hand; grant roles with --roles`,
  );
};
