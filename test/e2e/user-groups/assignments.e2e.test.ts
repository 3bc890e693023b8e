import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { MANAGED_ROLES } from '../../../shared/domain/permission-catalogue.js';
import { keys } from '../../../shared/store/keys.js';
import { archivePolicy } from '../../../shared/store/policy-repository.js';
import { archiveRole } from '../../../shared/store/role-repository.js';
import type { ApiError, ApiUserGroup, ApiUserGroupEnvelope, GroupResponse } from '../../support/service.js';
import {
  errorFields,
  getItem,
  groupPath,
  groupsApi,
  nextMillisecond,
  putTestPolicy,
  putTestRole,
  useFixture,
  useService,
} from '../../support/service.js';

/** Assigning roles, managed roles and policies to groups, and what groups put into user tokens. */
const service = useService();
const groups = groupsApi(service, service.admin);

type Target = 'roles' | 'managedRoles' | 'policies';
const bodyKey = { roles: 'roleId', managedRoles: 'managedRoleId', policies: 'policyId' } as const;
const label = { roles: 'Role', managedRoles: 'Managed role', policies: 'Policy' } as const;

const change = (
  groupId: string,
  target: Target,
  action: 'assign' | 'unassign',
  body: unknown,
  token = service.admin.token,
): Promise<GroupResponse> =>
  service.call<ApiUserGroupEnvelope & ApiError>('PUT', groupPath(groupId, `/${target}/${action}`), {
    token,
    body,
  });
const assign = (groupId: string, target: Target, id: string, token = service.admin.token) =>
  change(groupId, target, 'assign', { [bodyKey[target]]: id }, token);
const read = async (id: string) => (await groups.get(id)).body.userGroup;

let counter = 0;
const group = (fields: { status?: 'ACTIVE' | 'INACTIVE' } = {}) =>
  groups.newGroup({ name: `Assignments ${++counter}`, ...fields });

const foreign = useFixture(() => service.freshOrganization());
const foreignGroups = groupsApi(service, foreign);

describe('assign', () => {
  const targets: [Target, () => Promise<string>][] = [
    ['roles', async () => (await putTestRole(service.organizationId)).id],
    ['managedRoles', async () => 'read-only'],
    ['policies', () => putTestPolicy(service.organizationId)],
  ];

  it.each(targets)('%s: 200 with the group; updatedBy is the caller; idempotent', async (target, make) => {
    const created = await group();
    const id = await make();
    // The caller holds what the managed role gives, as granting it requires (docs/behaviour.md).
    const readOnly = MANAGED_ROLES.find((role) => role.id === 'read-only')?.permissions ?? [];
    const assigner = await service.callerWith(['USER_ROLES.GRANT', 'USER_POLICIES.GRANT', ...readOnly]);
    await nextMillisecond();
    const response = await assign(created.id, target, id, assigner.token);
    expect(response.status).toBe(200);
    const changed = response.body.userGroup;
    expect(changed).toEqual({
      ...created,
      [target]: [id],
      updatedAt: changed.updatedAt,
      updatedBy: assigner.principalId,
    });
    expect(changed.updatedAt).toBeGreaterThan(created.updatedAt);
    expect(changed.createdBy).toBe(service.admin.principalId);
    expect(await read(created.id)).toEqual(changed);

    const again = await assign(created.id, target, id);
    expect(again.status).toBe(200);
    expect(again.body.userGroup[target]).toEqual([id]);
  });

  it('collects several grants of each kind, sorted', async () => {
    const created = await group();
    const roles = [
      await putTestRole(service.organizationId),
      await putTestRole(service.organizationId),
      await putTestRole(service.organizationId),
    ];
    const policies = [
      await putTestPolicy(service.organizationId),
      await putTestPolicy(service.organizationId),
    ];
    for (const role of roles) await assign(created.id, 'roles', role.id);
    for (const policy of policies) await assign(created.id, 'policies', policy);
    for (const managed of ['user-manager', 'administrator'])
      await assign(created.id, 'managedRoles', managed);
    expect(await read(created.id)).toEqual({
      ...created,
      roles: roles.map((role) => role.id).sort(),
      policies: [...policies].sort(),
      managedRoles: ['administrator', 'user-manager'],
      updatedAt: expect.any(Number),
    });
  });

  it('answers 404 naming the target when it is unknown, archived or of another organization', async () => {
    const created = await group();
    const archived = await putTestRole(service.organizationId, { archived: true });
    const theirRole = await putTestRole(foreign.orgId);
    const archivedPolicy = await putTestPolicy(service.organizationId, { archived: true });
    const theirPolicy = await putTestPolicy(foreign.orgId);
    const cases: [Target, string][] = [
      ['roles', 'no-such-role'],
      ['roles', archived.id],
      ['roles', theirRole.id],
      ['policies', 'no-such-policy'],
      ['policies', archivedPolicy],
      ['policies', theirPolicy],
      ['managedRoles', 'no-such-managed-role'],
      ['managedRoles', theirRole.id],
    ];
    for (const [target, id] of cases) {
      const response = await assign(created.id, target, id);
      expect(response.status, `${target} ${id}`).toBe(404);
      expect(response.body).toMatchObject({ status: 404, message: `${label[target]} not found` });
    }
    expect(await read(created.id)).toEqual(created);
  });

  it('a role archived after assigning it is not listed any more (nor assignable again)', async () => {
    const created = await group();
    const [gone, kept] = [
      await putTestRole(service.organizationId),
      await putTestRole(service.organizationId),
    ];
    const [goneP, keptP] = [
      await putTestPolicy(service.organizationId),
      await putTestPolicy(service.organizationId),
    ];
    for (const role of [gone, kept]) await assign(created.id, 'roles', role.id);
    for (const policy of [goneP, keptP]) await assign(created.id, 'policies', policy);
    await archiveRole(service.organizationId, gone.id);
    await archivePolicy(service.organizationId, goneP);

    const shown = await read(created.id);
    expect(shown.roles).toEqual([kept.id]);
    expect(shown.policies).toEqual([keptP]);
    const listed = (await groups.listAll()).groups.find((g) => g.id === created.id);
    expect(listed).toEqual(shown);
    const response = await assign(created.id, 'managedRoles', 'read-only');
    expect(response.body.userGroup).toEqual({
      ...shown,
      managedRoles: ['read-only'],
      updatedAt: response.body.userGroup.updatedAt,
    });
    expect((await assign(created.id, 'roles', gone.id)).status).toBe(404);
    expect((await assign(created.id, 'policies', goneP)).status).toBe(404);
  });

  it.each(['roles', 'managedRoles', 'policies'] as const)(
    '%s: answers 404 for an unknown group and for a group of another organization',
    async (target) => {
      const id =
        target === 'roles'
          ? (await putTestRole(service.organizationId)).id
          : target === 'policies'
            ? await putTestPolicy(service.organizationId)
            : 'read-only';
      const theirs = await foreignGroups.newGroup({ name: `Theirs ${target}` });
      for (const groupId of ['no-such-group', theirs.id]) {
        const response = await assign(groupId, target, id);
        expect(response.status).toBe(404);
        expect(response.body.message).toBe('User group not found');
      }
      expect((await foreignGroups.get(theirs.id)).body).toEqual({ userGroup: theirs });
    },
  );
});

describe('unassign', () => {
  const targets: [Target, () => Promise<string>][] = [
    ['roles', async () => (await putTestRole(service.organizationId)).id],
    ['managedRoles', async () => 'user-manager'],
    ['policies', () => putTestPolicy(service.organizationId)],
  ];

  it.each(targets)('removes a %s idempotently and answers the group', async (target, make) => {
    const id = (await group()).id;
    const [kept, removed] = [await make(), await make()];
    await assign(id, target, removed);
    if (kept !== removed) await assign(id, target, kept);
    const first = await change(id, target, 'unassign', { [bodyKey[target]]: removed });
    expect(first.status).toBe(200);
    expect(first.body.userGroup[target]).toEqual(kept === removed ? [] : [kept]);
    const again = await change(id, target, 'unassign', { [bodyKey[target]]: removed });
    expect(again.status).toBe(200);
    expect((await read(id))[target]).toEqual(kept === removed ? [] : [kept]);
  });

  it('removes a role or policy archived since it was assigned (it counts toward the limit until then), not one never held', async () => {
    const id = (await group()).id;
    const [role, policy] = [
      await putTestRole(service.organizationId),
      await putTestPolicy(service.organizationId),
    ];
    await assign(id, 'roles', role.id);
    await assign(id, 'policies', policy);
    await archiveRole(service.organizationId, role.id);
    await archivePolicy(service.organizationId, policy);
    const stored = async () => (await getItem(keys.userGroup(service.organizationId, id))) ?? {};
    // Not shown, but held: an archived role takes one of the group's 100 places.
    expect([(await read(id)).roles, [...((await stored()).roles as Set<string>)]]).toEqual([[], [role.id]]);
    expect((await change(id, 'roles', 'unassign', { roleId: role.id })).status).toBe(200);
    expect((await change(id, 'policies', 'unassign', { policyId: policy })).status).toBe(200);
    expect([(await stored()).roles, (await stored()).policies]).toEqual([undefined, undefined]);
    // An archived role the group never held is nobody's to unassign: 404, as an unknown one.
    const other = await putTestRole(service.organizationId, { archived: true });
    const never = await change(id, 'roles', 'unassign', { roleId: other.id });
    expect([never.status, never.body.message]).toEqual([404, 'Role not found']);
  });

  it.each(targets)('answers 404 naming an unknown %s, and for an unknown group', async (target, make) => {
    const id = (await group()).id;
    const unknownTarget = await change(id, target, 'unassign', { [bodyKey[target]]: 'no-such-target' });
    expect(unknownTarget.status).toBe(404);
    expect(unknownTarget.body.message).toBe(`${label[target]} not found`);
    const unknownGroup = await change('no-such-group', target, 'unassign', {
      [bodyKey[target]]: await make(),
    });
    expect(unknownGroup.status).toBe(404);
    expect(unknownGroup.body.message).toBe('User group not found');
  });
});

describe('invalid bodies', () => {
  const cases = (['roles', 'managedRoles', 'policies'] as const).flatMap((target) =>
    (['assign', 'unassign'] as const).flatMap((action) => [
      [target, action, 'an unknown key', { [bodyKey[target]]: 'x', foo: 1 }, ['body.foo']],
      [target, action, 'a missing id', {}, [`body.${bodyKey[target]}`]],
      [target, action, 'an id of the wrong type', { [bodyKey[target]]: 5 }, [`body.${bodyKey[target]}`]],
      [target, action, 'an id with a slash', { [bodyKey[target]]: 'a/b' }, [`body.${bodyKey[target]}`]],
    ]),
  ) as [Target, 'assign' | 'unassign', string, unknown, string[]][];

  let target: ApiUserGroup;
  beforeAll(async () => {
    target = await group();
  });

  it.each(cases)('%s %s answers 400 for %s', async (kind, action, _label, body, fields) => {
    const response = await change(target.id, kind, action, body);
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Invalid body');
    expect(errorFields(response)).toEqual(fields);
    expect(await read(target.id)).toEqual(target);
  });
});

describe('effect on user tokens', () => {
  const permissionsOf = async (userId: string) => decodeJwt(await service.userToken(userId)).permissions;

  it('an ACTIVE group passes on its role; INACTIVE or deleted, it grants nothing', async () => {
    const user = await service.createUser();
    const role = await putTestRole(service.organizationId, { permissions: ['USER.LIST'] });
    const created = await group();
    await assign(created.id, 'roles', role.id);
    expect(await permissionsOf(user)).toEqual([]);
    await groups.addMember(user, created.id);
    expect(await permissionsOf(user)).toEqual(['USER.LIST']);

    expect((await groups.patch(created.id, { status: 'INACTIVE' })).status).toBe(200);
    expect(await permissionsOf(user)).toEqual([]);
    expect((await groups.patch(created.id, { status: 'ACTIVE' })).status).toBe(200);
    expect(await permissionsOf(user)).toEqual(['USER.LIST']);

    expect((await service.call('DELETE', groupPath(created.id), { token: service.admin.token })).status).toBe(
      204,
    );
    expect(await permissionsOf(user)).toEqual([]);
  });

  it('a group created INACTIVE grants nothing until activated', async () => {
    const user = await service.createUser();
    const role = await putTestRole(service.organizationId, { permissions: ['ROLES.LIST'] });
    const created = await group({ status: 'INACTIVE' });
    await assign(created.id, 'roles', role.id);
    await groups.addMember(user, created.id);
    expect(await permissionsOf(user)).toEqual([]);
    await groups.patch(created.id, { status: 'ACTIVE' });
    expect(await permissionsOf(user)).toEqual(['ROLES.LIST']);
  });

  it('passes on managed roles with their dependencies, and policies; archived ones grant nothing', async () => {
    const user = await service.createUser();
    const role = await putTestRole(service.organizationId, { permissions: ['USER.DETAILS'] });
    const policy = await putTestPolicy(service.organizationId);
    const created = await group();
    await groups.addMember(user, created.id);
    await assign(created.id, 'roles', role.id);
    await assign(created.id, 'policies', policy);
    let claims = decodeJwt(await service.userToken(user));
    expect(claims.permissions).toEqual(['USER.DETAILS', 'USER.LIST']);
    expect(claims.policies).toEqual([policy]);

    await archiveRole(service.organizationId, role.id);
    await archivePolicy(service.organizationId, policy);
    claims = decodeJwt(await service.userToken(user));
    expect(claims.permissions).toEqual([]);
    expect(claims.policies).toEqual([]);

    await assign(created.id, 'managedRoles', 'user-manager');
    const permissions = (await permissionsOf(user)) as string[];
    expect(permissions).toContain('USER_GROUP.GRANT');
    expect(permissions).toContain('ROLES.LIST'); // a dependency of USER_ROLES.GRANT
    expect(permissions).not.toContain('ROLES.ADD');
  });
});
