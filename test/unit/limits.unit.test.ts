import { describe, expect, it } from 'vitest';
import { MAX_PERMISSIONS_PER_ROLE } from '../../shared/domain/limits.js';
import { ALL_PERMISSION_IDS, MANAGED_ROLES } from '../../shared/domain/permission-catalogue.js';

/**
 * Bounds that hold by construction: a role's or managed role's permissions are catalogue ids
 * (unknown ids are refused, repeats kept once), so the catalogue's size bounds them all.
 */
describe('the built-in permission catalogue', () => {
  it(`has at most MAX_PERMISSIONS_PER_ROLE (${MAX_PERMISSIONS_PER_ROLE}) permissions, each once`, () => {
    expect(new Set(ALL_PERMISSION_IDS).size).toBe(ALL_PERMISSION_IDS.length);
    expect(ALL_PERMISSION_IDS.length).toBeLessThanOrEqual(MAX_PERMISSIONS_PER_ROLE);
  });

  it('holds every permission of the built-in managed roles', () => {
    const catalogue = new Set<string>(ALL_PERMISSION_IDS);
    for (const role of MANAGED_ROLES) {
      expect(
        role.permissions.filter((id) => !catalogue.has(id)),
        role.id,
      ).toEqual([]);
    }
  });
});
