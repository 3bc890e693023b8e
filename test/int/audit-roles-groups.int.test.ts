import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditActor, AuditRecord } from '../../shared/audit/record.js';
import { withAuditScope } from '../../shared/audit/scope.js';
import { NotFound } from '../../shared/domain/errors.js';
import { queryAuditRecords } from '../../shared/store/audit-records.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { grantTarget } from '../../shared/store/grant-targets.js';
import { clearDefaultRole, setDefaultRole } from '../../shared/store/organization-repository.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { archivePolicy, createPolicy, renamePolicy } from '../../shared/store/policy-repository.js';
import { changeRolePluginPermissions } from '../../shared/store/role-plugin-permissions.js';
import {
  archiveRole,
  changeRolePermissions,
  createRole,
  setRolePermissions,
} from '../../shared/store/role-repository.js';
import {
  changeUserGroupGrant,
  createUserGroup,
  updateUserGroup,
} from '../../shared/store/user-group-repository.js';
import { createTestOrganization, useDatabase } from '../support/service.js';

/**
 * What the records of role, default role, policy and user group changes say beyond the route
 * walk: the fields' from and to, every target, and no record for a call that changes nothing.
 */
useDatabase();

const admin: AuditActor = { type: 'user', id: 'admin-roles', ip: '198.51.100.9' };
const org = { id: '' };

beforeAll(async () => {
  // The permission catalogue and the managed roles.
  await seedSystemData();
  org.id = (await createTestOrganization()).id;
});

const as = <T>(work: () => Promise<T>): Promise<T> => withAuditScope({ actor: admin }, work);

/** The records naming `targetId`, oldest first. */
const recordsOf = async (targetId: string): Promise<AuditRecord[]> =>
  (await queryAuditRecords(org.id, { targetId }, { limit: 1000 })).records.reverse();

/** Runs `work` and answers the records naming `targetId` that it added. */
const added = async (targetId: string, work: () => Promise<unknown>): Promise<AuditRecord[]> => {
  const before = (await recordsOf(targetId)).length;
  await as(work);
  return (await recordsOf(targetId)).slice(before);
};

const newRole = (permissions: string[] = []) =>
  as(() =>
    createRole({
      organizationId: org.id,
      name: `Role ${randomUUID().slice(0, 8)}`,
      permissions,
      createdBy: admin.id,
    }),
  );

describe('role records', () => {
  it('show a creation, each change of permissions from and to, and the archive; no-ops record nothing', async () => {
    const role = await newRole(['USER.LIST']);
    const [created] = await recordsOf(role.id);
    expect(created).toMatchObject({
      action: 'role.created',
      actor: admin,
      targets: [{ type: 'role', id: role.id, name: role.name }],
      changes: {
        name: { from: null, to: role.name },
        permissions: { from: null, to: ['USER.LIST'] },
        archived: { from: null, to: false },
      },
    });

    expect(
      await added(role.id, () => changeRolePermissions(org.id, role.id, ['USER.DETAILS', 'USER.ADD'], 'ADD')),
    ).toMatchObject([
      {
        action: 'role.updated',
        targets: [{ type: 'role', id: role.id, name: role.name }],
        changes: { permissions: { from: ['USER.LIST'], to: ['USER.ADD', 'USER.DETAILS', 'USER.LIST'] } },
      },
    ]);
    expect(await added(role.id, () => changeRolePermissions(org.id, role.id, ['USER.ADD'], 'ADD'))).toEqual(
      [],
    );
    expect(
      await added(role.id, () => changeRolePermissions(org.id, role.id, ['USER.DELETE'], 'DELETE')),
    ).toEqual([]);
    expect(
      await added(role.id, () =>
        setRolePermissions(org.id, role.id, ['USER.LIST', 'USER.DETAILS', 'USER.ADD']),
      ),
    ).toEqual([]);
    expect(
      (await added(role.id, () => changeRolePermissions(org.id, role.id, ['USER.LIST'], 'DELETE')))[0]
        ?.changes,
    ).toEqual({
      permissions: { from: ['USER.ADD', 'USER.DETAILS', 'USER.LIST'], to: ['USER.ADD', 'USER.DETAILS'] },
    });
    expect((await added(role.id, () => setRolePermissions(org.id, role.id, [])))[0]?.changes).toEqual({
      permissions: { from: ['USER.ADD', 'USER.DETAILS'], to: [] },
    });

    expect(await added(role.id, () => archiveRole(org.id, role.id))).toMatchObject([
      { action: 'role.archived', changes: { archived: { from: false, to: true } } },
    ]);
  });

  it("show a plugin's grants from and to, naming the role and the plugin", async () => {
    const role = await newRole();
    const pluginId = `plugin-${randomUUID()}`;
    const view = { module: 'REPORTS', actionName: 'VIEW' };
    await definePlugin({
      id: pluginId,
      permissionDefinitions: [{ id: `${pluginId}-view`, ...view, description: 'See reports' }],
      dependentPermissions: [],
    });
    await assignPlugin(org.id, pluginId);
    const change = (how: 'set' | 'assign' | 'revoke') =>
      changeRolePluginPermissions(org.id, role.id, pluginId, [view], how, '');

    const grant = { id: `${pluginId}-view`, ...view };
    expect(await added(pluginId, () => change('assign'))).toMatchObject([
      {
        action: 'role.pluginPermissions.set',
        targets: [
          { type: 'role', id: role.id, name: role.name },
          { type: 'plugin', id: pluginId },
        ],
        changes: { pluginPermissions: { from: [], to: [grant] } },
      },
    ]);
    expect(await added(role.id, () => change('set'))).toEqual([]);
    expect((await added(role.id, () => change('revoke')))[0]?.changes).toEqual({
      pluginPermissions: { from: [grant], to: [] },
    });
    expect(await added(role.id, () => change('revoke'))).toEqual([]);
  });
});

describe('default role records', () => {
  it('name the organization, the new role and the one it replaces; setting it again or clearing none records nothing', async () => {
    const { id: orgId } = await createTestOrganization();
    const role = await as(() =>
      createRole({ organizationId: orgId, name: 'Newcomers', permissions: [], createdBy: admin.id }),
    );
    const defaults = async (work: () => Promise<unknown>) => {
      const before = (await queryAuditRecords(orgId, { action: 'defaultRole.' }, { limit: 100 })).records;
      await as(work);
      const after = (await queryAuditRecords(orgId, { action: 'defaultRole.' }, { limit: 100 })).records;
      return after.slice(0, after.length - before.length);
    };

    expect(await defaults(() => clearDefaultRole(orgId))).toEqual([]);
    expect(await defaults(() => setDefaultRole(orgId, role.id))).toMatchObject([
      {
        action: 'defaultRole.set',
        actor: admin,
        targets: [
          { type: 'organization', id: orgId },
          { type: 'role', id: role.id, name: 'Newcomers' },
        ],
        changes: { defaultRole: { from: null, to: { roleId: role.id, isStandardRole: true } } },
      },
    ]);
    expect(await defaults(() => setDefaultRole(orgId, role.id))).toEqual([]);
    expect(await defaults(() => setDefaultRole(orgId, 'read-only'))).toMatchObject([
      {
        action: 'defaultRole.set',
        targets: [
          { type: 'organization', id: orgId },
          { type: 'managedRole', id: 'read-only' },
          { type: 'role', id: role.id },
        ],
        changes: {
          defaultRole: {
            from: { roleId: role.id, isStandardRole: true },
            to: { roleId: 'read-only', isStandardRole: false },
          },
        },
      },
    ]);
    expect(await defaults(() => clearDefaultRole(orgId))).toMatchObject([
      {
        action: 'defaultRole.cleared',
        targets: [
          { type: 'organization', id: orgId },
          { type: 'managedRole', id: 'read-only' },
        ],
        changes: { defaultRole: { from: { roleId: 'read-only', isStandardRole: false }, to: null } },
      },
    ]);
    expect(await defaults(() => clearDefaultRole(orgId))).toEqual([]);
  });
});

describe('policy records', () => {
  it('show the creation, a rename from and to, and the archive; the same name records nothing', async () => {
    const policy = await as(() =>
      createPolicy({ organizationId: org.id, name: 'Night shift', createdBy: admin.id }),
    );
    expect(await recordsOf(policy.id)).toMatchObject([
      {
        action: 'policy.created',
        targets: [{ type: 'policy', id: policy.id, name: 'Night shift' }],
        changes: { name: { from: null, to: 'Night shift' } },
      },
    ]);
    expect(await added(policy.id, () => renamePolicy(org.id, policy.id, 'Night shift'))).toEqual([]);
    expect(await added(policy.id, () => renamePolicy(org.id, policy.id, 'Late shift'))).toMatchObject([
      {
        action: 'policy.updated',
        targets: [{ type: 'policy', id: policy.id, name: 'Late shift' }],
        changes: { name: { from: 'Night shift', to: 'Late shift' } },
      },
    ]);
    expect(await added(policy.id, () => archivePolicy(org.id, policy.id))).toMatchObject([
      { action: 'policy.archived', changes: { archived: { from: false, to: true } } },
    ]);
  });
});

describe('user group records', () => {
  const newGroup = () =>
    as(() =>
      createUserGroup({
        organizationId: org.id,
        name: `Group ${randomUUID().slice(0, 8)}`,
        createdBy: admin.id,
      }),
    );

  it('show a creation and the fields a change changed; a change to the values held records nothing', async () => {
    const group = await as(() =>
      createUserGroup({ organizationId: org.id, name: 'Pilots', description: 'Fly', createdBy: admin.id }),
    );
    expect(await recordsOf(group.id)).toMatchObject([
      {
        action: 'group.created',
        targets: [{ type: 'group', id: group.id, name: 'Pilots' }],
        changes: {
          name: { from: null, to: 'Pilots' },
          description: { from: null, to: 'Fly' },
          status: { from: null, to: 'ACTIVE' },
        },
      },
    ]);
    const update = (changes: Parameters<typeof updateUserGroup>[2]) =>
      added(group.id, () => updateUserGroup(org.id, group.id, changes, admin.id));
    expect(await update({ name: 'Pilots', status: 'ACTIVE' })).toEqual([]);
    expect(await update({ name: 'Captains', status: 'INACTIVE', description: 'Fly' })).toMatchObject([
      {
        action: 'group.updated',
        targets: [{ type: 'group', id: group.id, name: 'Captains' }],
        changes: { name: { from: 'Pilots', to: 'Captains' }, status: { from: 'ACTIVE', to: 'INACTIVE' } },
      },
    ]);
    expect(Object.keys((await recordsOf(group.id)).at(-1)?.changes ?? {}).sort()).toEqual(['name', 'status']);
  });

  it('name the group and what it was granted or revoked; a grant held, or a revoke not held, records nothing', async () => {
    const group = await newGroup();
    const role = await newRole();
    const policy = await as(() =>
      createPolicy({
        organizationId: org.id,
        name: `Policy ${randomUUID().slice(0, 8)}`,
        createdBy: admin.id,
      }),
    );
    const change = (field: 'roles' | 'policies' | 'managedRoles', id: string, operation: 'ADD' | 'DELETE') =>
      added(group.id, () =>
        changeUserGroupGrant(org.id, group.id, grantTarget(org.id, field, id), operation, admin.id),
      );

    for (const [field, id, type, action] of [
      ['roles', role.id, 'role', 'group.role'],
      ['policies', policy.id, 'policy', 'group.policy'],
      ['managedRoles', 'read-only', 'managedRole', 'group.managedRole'],
    ] as const) {
      const expected = (verb: string) => [
        {
          action: `${action}.${verb}`,
          actor: admin,
          targets: [
            { type: 'group', id: group.id },
            { type, id },
          ],
        },
      ];
      expect(await change(field, id, 'DELETE'), `${field} revoked before granted`).toEqual([]);
      expect(await change(field, id, 'ADD'), field).toMatchObject(expected('granted'));
      expect(await change(field, id, 'ADD'), `${field} granted again`).toEqual([]);
      expect(await change(field, id, 'DELETE'), field).toMatchObject(expected('revoked'));
      expect(await change(field, id, 'DELETE'), `${field} revoked again`).toEqual([]);
    }
  });

  it('refuse a target that is not live even when the group does not hold it (no record)', async () => {
    const group = await newGroup();
    const role = await newRole();
    await as(() => archiveRole(org.id, role.id));
    const unassign = () =>
      as(() =>
        changeUserGroupGrant(org.id, group.id, grantTarget(org.id, 'roles', role.id), 'DELETE', admin.id),
      );
    await expect(unassign()).rejects.toThrow(NotFound);
    await expect(unassign()).rejects.toThrow(/Role/);
    expect((await recordsOf(group.id)).map((record) => record.action)).toEqual(['group.created']);
  });
});
