import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/store/organization-repository.js';
import { archiveRole, createRole, listRoles } from '../../shared/store/role-repository.js';
import { useDatabase } from '../support/database.js';

/**
 * Sequenced listings of the store against DynamoDB Local: pages by offset, without reading what
 * comes before them, stay in creation order while entries leave (archived roles) across buckets.
 */
useDatabase();

const newOrganization = async () => {
  const id = randomUUID();
  const now = Date.now();
  await createOrganization({ id, name: 'Listing test', createdAt: now, updatedAt: now, mfaEnabled: false });
  return id;
};

const allPages = async (orgId: string, pageSize: number) => {
  const names: string[] = [];
  for (let page = 0; ; page++) {
    const { roles, hasMore } = await listRoles(orgId, page, pageSize);
    names.push(...roles.map((role) => role.name));
    if (!hasMore) return names;
  }
};

describe('sequenced listing', () => {
  it('pages roles in creation order across buckets of 100, with archived ones left out', async () => {
    const orgId = await newOrganization();
    const created: { id: string; name: string }[] = [];
    // Sequentially, so creation order is the order of the names; 230 roles span three buckets.
    for (let index = 0; index < 230; index++) {
      created.push(
        await createRole({ organizationId: orgId, name: `r${index}`, permissions: [], createdBy: 't' }),
      );
    }
    const archived = new Set(created.filter((_, index) => index % 7 === 0 || (index >= 95 && index < 110)));
    await Promise.all([...archived].map((role) => archiveRole(orgId, role.id)));
    const expected = created.filter((role) => !archived.has(role)).map((role) => role.name);
    for (const pageSize of [1, 7, 50, 100, 101, 1000]) {
      expect(await allPages(orgId, pageSize)).toEqual(expected);
    }
    // Past the end: an empty page that says nothing more follows.
    expect(await listRoles(orgId, 500, 1)).toEqual({ roles: [], hasMore: false });
  });

  it('an organization without entries has an empty first page', async () => {
    expect(await listRoles(await newOrganization(), 0, 10)).toEqual({ roles: [], hasMore: false });
  });
});
