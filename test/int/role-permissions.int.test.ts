import { beforeAll, describe, expect, it } from 'vitest';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { keys } from '../../shared/store/keys.js';
import {
  changeRolePermissions,
  requireRole,
  setRolePermissions,
} from '../../shared/store/role-repository.js';
import { useDatabase } from '../support/database.js';
import { beforeTransaction, sameKey } from '../support/interleave.js';
import { createTestOrganization, putTestRole } from '../support/records.js';

/**
 * A role's permissions replaced (`PUT /idp/roles/{id}`): what the replacement adds is worked out
 * from the role the write is conditioned on, so the caller's ceiling (functions/roles.ts) is
 * checked against what the write really adds, also when an administrator changed it meanwhile.
 */
useDatabase();
beforeAll(() => seedSystemData());

describe("replacing a role's permissions", () => {
  it('hears as added a permission revoked between its read and its write, and writes nothing when refused', async () => {
    const org = (await createTestOrganization()).id;
    const role = await putTestRole(org, { permissions: ['USER.LIST', 'AUDIT.READ'] });
    const heard: string[][] = [];
    /** A caller holding everything but AUDIT.READ. */
    const withoutAudit = async (added: readonly string[]) => {
      heard.push([...added]);
      if (added.includes('AUDIT.READ')) throw new Error('beyond the caller');
    };
    // Positive control: a replacement keeping AUDIT.READ adds only what is new.
    await setRolePermissions(org, role.id, ['USER.LIST', 'AUDIT.READ', 'USER.DETAILS'], withoutAudit);
    expect(heard).toEqual([['USER.DETAILS']]);

    // An administrator revokes AUDIT.READ just before the next replacement's write, which lists it.
    const meanwhile = beforeTransaction(
      (items) => items.some((item) => sameKey(item.Update?.Key, keys.role(org, role.id))),
      () => changeRolePermissions(org, role.id, ['AUDIT.READ'], 'DELETE'),
    );
    await expect(
      setRolePermissions(
        org,
        role.id,
        ['USER.LIST', 'AUDIT.READ', 'USER.DETAILS', 'ROLES.LIST'],
        withoutAudit,
      ),
    ).rejects.toThrow('beyond the caller');
    meanwhile.stop();
    expect(meanwhile.ran).toBe(true);
    expect(heard.slice(1)).toEqual([['ROLES.LIST'], ['AUDIT.READ', 'ROLES.LIST']]);
    expect([...((await requireRole(org, role.id)).permissions ?? [])].sort()).toEqual([
      'USER.DETAILS',
      'USER.LIST',
    ]);
  });
});
