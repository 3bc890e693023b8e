import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionId } from '../../../shared/domain/permission-catalogue.js';
import type { ApiResponse, ApiRole, RolesApi } from '../../support/service.js';
import {
  createTestOrganization,
  errorFields,
  itemField,
  listedNames,
  newRole,
  nextLink,
  permissionsWithout,
  putTestRole,
  ROLE_NOT_FOUND,
  readRole,
  rolePath,
  rolesApi,
  useFixture,
  useService,
} from '../../support/service.js';

/** POST /roles, GET /roles, GET /roles/{id}, and who may call each role operation. */
const service = useService();
let api: RolesApi;

beforeAll(async () => {
  api = rolesApi(service, service.admin.token);
});

const foreign = useFixture(() => service.freshOrganization());

describe('POST /roles', () => {
  it('answers 204 with no body and a Location that reads back the role', async () => {
    const before = Date.now();
    const response = await api.create({ name: 'Role Editors', permissions: ['USER.LIST', 'ROLES.UPDATE'] });
    const after = Date.now();
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const location = response.headers.get('location') as string;
    expect(location).toMatch(new RegExp(`^${service.baseUrl}/idp/roles/[0-9a-f-]{36}$`));
    const id = location.split('/').pop() as string;

    const read = await service.call('GET', new URL(location).pathname, { token: service.admin.token });
    expect(read.status).toBe(200);
    const role = read.body as { createdAt: number };
    expect(role).toEqual({
      id,
      name: 'Role Editors',
      permissions: ['ROLES.UPDATE', 'USER.LIST'],
      dependentPermissions: ['PERMISSIONS.LIST', 'ROLES.DETAILS', 'ROLES.LIST'],
      pluginPermissions: { id, pluginPermissions: [] },
      createdAt: role.createdAt,
      updatedAt: role.createdAt,
    });
    expect(role.createdAt).toBeGreaterThanOrEqual(before);
    expect(role.createdAt).toBeLessThanOrEqual(after);
  });

  it.each([
    ['no permissions', [], [], []],
    [
      'a dependency already held',
      ['ROLES.LIST', 'ROLES.UPDATE'],
      ['ROLES.LIST', 'ROLES.UPDATE'],
      ['PERMISSIONS.LIST', 'ROLES.DETAILS'],
    ],
    ['a repeated id', ['USER.DELETE', 'USER.DELETE'], ['USER.DELETE'], ['USER.DETAILS', 'USER.LIST']],
    ['no dependencies', ['SSO.ADMIN', 'API_CLIENTS.READ'], ['API_CLIENTS.READ', 'SSO.ADMIN'], []],
  ])(
    'with %s: permissions and dependentPermissions as expected',
    async (label, given, permissions, dependents) => {
      const id = await newRole(api, `Shape ${label}`, given);
      const role = await readRole(api, id);
      expect(role.permissions).toEqual(permissions);
      expect(role.dependentPermissions).toEqual(dependents);
    },
  );

  it('refuses a name already taken, in any case, with 409 and leaves the first role alone', async () => {
    const id = await newRole(api, 'Ops', ['USER.LIST']);
    const first = await readRole(api, id);
    for (const name of ['Ops', 'ops', 'OPS', '  oPs  ']) {
      const response = await api.create({ name, permissions: ['ROLES.LIST'] });
      expect(response.status, name).toBe(409);
      expect(response.body).toMatchObject({ status: 409, message: 'A role with this name already exists' });
    }
    expect(await readRole(api, id)).toEqual(first);
    expect((await listedNames(api)).filter((name) => name.toLowerCase() === 'ops')).toEqual(['Ops']);
  });

  it("refuses a name shaped like a role id, so that no role takes another's grants and revokes", async () => {
    const target = await newRole(api, `Target ${Date.now()}`, ['USER.LIST']);
    const user = await service.createUser();
    for (const name of [
      target,
      target.toUpperCase(),
      ` ${target} `,
      '00000000-0000-4000-8000-000000000000',
    ]) {
      const response = await api.create({ name, permissions: ['ROLES.LIST'] });
      expect(response.status, name).toBe(400);
      expect(errorFields(response)).toEqual(['body.name']);
    }
    // Positive control: the same request with another name is taken.
    expect((await api.create({ name: `${target}-x`, permissions: ['ROLES.LIST'] })).status).toBe(204);
    // A grant of the id reaches the role with that id.
    const granted = await service.call('PUT', `/idp/users/${user}/roles/${target}/grant`, {
      token: service.admin.token,
    });
    expect(granted.status).toBe(204);
    const holder = await service.call<{ roles: string[] }>('GET', `/idp/users/${user}`, {
      token: service.admin.token,
    });
    expect(holder.body.roles).toEqual([target]);
  });

  it('lets exactly one of 10 concurrent creates of one name through; the others get 409', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        api.create({ name: index % 2 ? 'Racing Role' : 'racing role', permissions: [] }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([204, ...Array(9).fill(409)]);
    expect((await listedNames(api)).filter((name) => name.toLowerCase() === 'racing role')).toHaveLength(1);
  });

  it('frees the name of an archived role for a new role', async () => {
    const old = await newRole(api, 'Reusable', ['USER.LIST']);
    expect((await api.archive(old)).status).toBe(204);
    const fresh = await newRole(api, 'REUSABLE', ['ROLES.LIST']);
    expect(fresh).not.toBe(old);
    expect((await readRole(api, fresh)).name).toBe('REUSABLE');
    expect((await api.get(old)).status).toBe(404);
  });

  it('answers 400 for unknown permission ids, naming each, and creates nothing', async () => {
    const response = await api.create({
      name: 'Unknowns',
      permissions: ['ROLES.LIST', 'NOPE.READ', 'roles.list'],
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      status: 400,
      error: 'Bad Request',
      message: 'Unknown permission ids',
    });
    expect(response.body.errorDetails).toEqual([
      {
        message: 'No permission with this id exists',
        field: itemField('permissions', 1),
        rejectedValue: 'NOPE.READ',
      },
      {
        message: 'No permission with this id exists',
        field: itemField('permissions', 2),
        rejectedValue: 'roles.list',
      },
    ]);
    expect(await listedNames(api)).not.toContain('Unknowns');
  });

  it.each([
    ['a missing name', { permissions: [] }, 'body.name'],
    ['missing permissions', { name: 'No permissions' }, 'body.permissions'],
    ['an unknown property', { name: 'Extra', permissions: [], description: 'x' }, 'body.description'],
    ['an empty name', { name: '', permissions: [] }, 'body.name'],
    ['a blank name', { name: '   ', permissions: [] }, 'body.name'],
    ['a name of the wrong type', { name: 7, permissions: [] }, 'body.name'],
    ['permissions of the wrong type', { name: 'Wrong', permissions: 'ROLES.LIST' }, 'body.permissions'],
    ['a permission of the wrong type', { name: 'Wrong', permissions: [5] }, itemField('permissions', 0)],
  ])('answers 400 for %s and creates nothing', async (_label, body, field) => {
    const before = await listedNames(api);
    const response = await api.create(body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, message: 'Invalid body' });
    expect(errorFields(response)).toEqual([field]);
    expect(await listedNames(api)).toEqual(before);
  });
});

describe('GET /roles', () => {
  /** A new organization whose only role is that of its client (which may list, add and archive). */
  const organizationWithOneRole = async () => {
    const { id } = await createTestOrganization();
    const client = await service.callerWith(['ROLES.ADD', 'ROLES.DELETE', 'USER.UPDATE'], {
      organization: id,
    });
    return { ...client, roles: rolesApi(service, client.token) };
  };
  const ids = (roles: ApiRole[]) => roles.map((role) => role.id);

  it('pages in creation order, oldest first, with Link rel="next" only while more exist', async () => {
    const org = await organizationWithOneRole();
    const created = [org.roleId];
    for (const name of ['E', 'D', 'C', 'B', 'A']) created.push(await newRole(org.roles, name));

    const all = await org.roles.list();
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual(created);
    expect(all.headers.get('link')).toBeNull();

    const expected = [created.slice(0, 4), created.slice(4, 6), []];
    for (const [page, want] of expected.entries()) {
      const response = await org.roles.list(`?page=${page}&pageSize=4`);
      expect(response.status).toBe(200);
      expect(ids(response.body), `page ${page}`).toEqual(want);
      expect(nextLink(response.headers)).toBe(
        page === 0 ? '/idp/roles?page=1&pageSize=4&after=4' : undefined,
      );
    }
    // Stable: the same page again, and pages of one.
    expect(ids((await org.roles.list('?page=1&pageSize=4')).body)).toEqual(created.slice(4));
    const single: string[] = [];
    let next: string | undefined = '/idp/roles?pageSize=1';
    while (next) {
      expect(single.length).toBeLessThan(created.length);
      const response = await service.call<ApiRole[]>('GET', next, { token: org.token });
      single.push(...ids(response.body));
      next = nextLink(response.headers);
    }
    expect(single).toEqual(created);
  });

  it('leaves archived roles out, also when counting pages', async () => {
    const org = await organizationWithOneRole();
    const created = [org.roleId];
    for (const name of ['R1', 'R2', 'R3', 'R4', 'R5']) created.push(await newRole(org.roles, name));
    for (const id of [created[2], created[4]])
      expect((await org.roles.archive(id as string)).status).toBe(204);
    const live = [created[0], created[1], created[3], created[5]];

    expect(ids((await org.roles.list()).body)).toEqual(live);
    const first = await org.roles.list('?page=0&pageSize=2');
    expect(ids(first.body)).toEqual(live.slice(0, 2));
    expect(nextLink(first.headers)).toBe('/idp/roles?page=1&pageSize=2&after=2');
    const second = await org.roles.list('?page=1&pageSize=2');
    expect(ids(second.body)).toEqual(live.slice(2));
    expect(second.headers.get('link')).toBeNull();
    expect((await org.roles.list('?page=2&pageSize=2')).body).toEqual([]);
  });

  it('pages across more than 100 roles with archived ones anywhere, following Link', async () => {
    const org = await organizationWithOneRole();
    const created = [org.roleId];
    for (let i = 0; i < 104; i++) created.push((await putTestRole(org.orgId, { name: `Many ${i}` })).id);
    const archived = [3, 50, 99, 100].map((index) => created[index] as string);
    for (const id of archived) expect((await org.roles.archive(id)).status).toBe(204);
    const live = created.filter((id) => !archived.includes(id));
    expect(live).toHaveLength(101);

    const seen: string[] = [];
    let next: string | undefined = '/idp/roles?pageSize=10';
    for (let pages = 0; next; pages++) {
      expect(pages).toBeLessThan(11);
      const response: ApiResponse<ApiRole[]> = await service.call('GET', next, { token: org.token });
      expect(response.status).toBe(200);
      seen.push(...ids(response.body));
      next = nextLink(response.headers);
    }
    expect(seen).toEqual(live);
    expect(ids((await org.roles.list('?page=10&pageSize=10')).body)).toEqual(live.slice(100));
  });

  it('shows every role in full, and only those of the caller’s organization', async () => {
    const org = await organizationWithOneRole();
    const id = await newRole(org.roles, 'Full', ['USER.UPDATE']);
    const listed = await org.roles.list('?page=0&pageSize=1000');
    expect(listed.body).toHaveLength(2);
    expect(listed.body[1]).toEqual(await readRole(org.roles, id));
    expect(listed.body[1]?.dependentPermissions).toEqual(['USER.DETAILS', 'USER.LIST']);
  });

  it.each([
    ['?pageSize=0', 'query.pageSize'],
    ['?pageSize=1001', 'query.pageSize'],
    ['?page=-1', 'query.page'],
    ['?page=x', 'query.page'],
    ['?pageSize=2.5', 'query.pageSize'],
  ])('answers 400 for %s', async (query, field) => {
    const response = await api.list(query);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ status: 400, message: 'Invalid query' });
    expect(errorFields(response)).toEqual([field]);
  });
});

describe('GET /roles/{id}', () => {
  it('answers 404 for an unknown id, a role of another organization and an archived role', async () => {
    const theirs = await newRole(rolesApi(service, foreign.token), 'Theirs', ['USER.LIST']);
    const archived = await newRole(api, 'Archived read', ['USER.LIST']);
    expect((await api.archive(archived)).status).toBe(204);
    for (const id of ['no-such-role', theirs, archived]) {
      const response = await api.get(id);
      expect(response.status, id).toBe(404);
      expect(response.body).toMatchObject(ROLE_NOT_FOUND);
      expect(JSON.stringify(response.body)).not.toContain('Theirs');
    }
    expect((await readRole(rolesApi(service, foreign.token), theirs)).name).toBe('Theirs');
  });

  it('answers 400 for an id that is not an identifier', async () => {
    const response = await api.get('bad id');
    expect(response.status).toBe(400);
    expect(errorFields(response)).toEqual(['path.id']);
  });
});

describe('access', () => {
  const operations: [string, PermissionId, string, (id: string) => string, unknown][] = [
    ['POST /roles', 'ROLES.ADD', 'POST', () => '/idp/roles', { name: 'Forbidden', permissions: [] }],
    ['GET /roles', 'ROLES.LIST', 'GET', () => '/idp/roles', undefined],
    ['GET /roles/{id}', 'ROLES.DETAILS', 'GET', (id) => rolePath(id), undefined],
    ['PUT /roles/{id}', 'ROLES.UPDATE', 'PUT', (id) => rolePath(id), { permissions: [] }],
    ['DELETE /roles/{id}', 'ROLES.DELETE', 'DELETE', (id) => rolePath(id), undefined],
    [
      'assign',
      'ROLES.UPDATE',
      'POST',
      (id) => rolePath(id, '/permissions/assign'),
      { permissionIds: ['SSO.ADMIN'] },
    ],
    [
      'revoke',
      'ROLES.UPDATE',
      'POST',
      (id) => rolePath(id, '/permissions/revoke'),
      { permissionIds: ['USER.LIST'] },
    ],
  ];

  it.each(operations)(
    '%s answers 403 with every permission but %s and changes nothing',
    async (_name, permission, method, path, body) => {
      const id = await newRole(api, `Guarded ${permission} ${method} ${path('x')}`, ['USER.LIST']);
      const before = await readRole(api, id);
      const caller = await service.callerWith(permissionsWithout(permission));
      const response = await service.call(method, path(id), {
        token: caller.token,
        ...(body === undefined ? {} : { body }),
      });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ status: 403, message: `Missing permission: ${permission}` });
      expect(await readRole(api, id)).toEqual(before);
      expect(await listedNames(api)).not.toContain('Forbidden');
    },
  );

  it('answers 401 without a token', async () => {
    const response = await service.call('GET', '/idp/roles');
    expect(response.status).toBe(401);
  });
});
