import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PermissionId } from '../../shared/domain/permission-catalogue.js';
import { keys } from '../../shared/store/keys.js';
import { idFromLocation } from '../support/api.js';
import { beforeCommand } from '../support/interleave.js';
import type { ApiError } from '../support/service.js';
import { putTestRole, putTestUserGroup, useFixture, useService } from '../support/service.js';

/**
 * No one gives what they do not hold (docs/behaviour.md, "Granting"): every change that would give
 * permissions, or take over or change the sign-in of someone holding more, is refused with 403
 * unless the caller's token holds what is given. Each refusal starts from the same call by a
 * caller who also holds the permissions given, which succeeds, and changes only that.
 */
const service = useService();
const org = useFixture(() => service.freshOrganization());

/** A role giving AUDIT.READ, which no limited caller below holds unless told so. */
let auditor: { id: string; name: string };
beforeAll(async () => {
  auditor = await putTestRole(org.orgId, { permissions: ['AUDIT.READ'] });
});

const as = (token: string) => ({
  call: <T = ApiError>(method: string, path: string, body?: unknown) =>
    service.call<T>(method, path, { token, ...(body === undefined ? {} : { body }) }),
});
const caller = async (permissions: PermissionId[], clientType?: 'STANDARD' | 'RESTRICTED') =>
  as(
    (
      await service.callerWith(permissions, {
        organization: org.orgId,
        ...(clientType ? { clientType } : {}),
      })
    ).token,
  );
const admin = () => as(org.token);
/** The id of the client a client-credentials token was issued to. */
const clientIdOf = (token: string) => String(decodeJwt(token).sub);
const newUser = async (userType: 'STANDARD' | 'RESTRICTED' = 'STANDARD') =>
  service.createUser({ as: org, userType });
const userOf = async (id: string) =>
  (
    await admin().call<{ roles: string[]; managedRoles: string[]; userGroups: string[]; email: string }>(
      'GET',
      `/idp/users/${id}`,
    )
  ).body;

/** Expects a 403 naming what the caller lacks. */
const groupStatus = async (id: string) =>
  (await admin().call<{ userGroup: { status: string } }>('GET', `/idp/userGroups/${id}`)).body.userGroup
    .status;

/** The transaction that puts the group item carrying `marker` as its description. */
const putsGroupWith = (groupId: string, marker: string) => (input: Record<string, unknown>) => {
  const items = (input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems;
  const key = keys.userGroup(org.orgId, groupId);
  return (
    items?.some(
      (item) =>
        item.Put?.Item?.pk === key.pk && item.Put.Item.sk === key.sk && item.Put.Item.description === marker,
    ) ?? false
  );
};

const expectBeyond = (response: { status: number; body: unknown }, lacking: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(403);
  expect((response.body as ApiError).message).toContain('would give permissions the caller does not hold');
  expect((response.body as ApiError).message).toContain(lacking);
};

describe('giving roles', () => {
  it('grants a role or managed role to a user only when the caller holds what it gives', async () => {
    const user = await newUser();
    const limited = await caller(['USER_ROLES.GRANT']);
    expectBeyond(await limited.call('PUT', `/idp/users/${user}/roles/${auditor.id}/grant`), 'AUDIT.READ');
    expectBeyond(await limited.call('PUT', `/idp/users/${user}/managedRoles/administrator`), 'AUDIT.READ');
    expect(await userOf(user)).toMatchObject({ roles: [], managedRoles: [] });

    const holding = await caller(['USER_ROLES.GRANT', 'AUDIT.READ']);
    expect((await holding.call('PUT', `/idp/users/${user}/roles/${auditor.id}/grant`)).status).toBe(204);
    expect((await admin().call('PUT', `/idp/users/${user}/managedRoles/administrator`)).status).toBe(204);
    expect(await userOf(user)).toMatchObject({ roles: [auditor.id], managedRoles: ['administrator'] });
  });

  it("adds a member to a group, gives a group a role, or activates one, only within the caller's permissions", async () => {
    const group = await putTestUserGroup(org.orgId, { roles: [auditor.id] });
    const user = await newUser();
    expectBeyond(
      await (await caller(['USER_GROUP.GRANT'])).call('PUT', `/idp/users/${user}/userGroups/${group}`),
      'AUDIT.READ',
    );
    expect((await userOf(user)).userGroups).toEqual([]);
    const joined = await (await caller(['USER_GROUP.GRANT', 'AUDIT.READ'])).call(
      'PUT',
      `/idp/users/${user}/userGroups/${group}`,
    );
    expect(joined.status).toBe(200);

    const empty = await putTestUserGroup(org.orgId);
    const body = { roleId: auditor.id };
    expectBeyond(
      await (await caller(['USER_ROLES.GRANT'])).call('PUT', `/idp/userGroups/${empty}/roles/assign`, body),
      'AUDIT.READ',
    );
    const assigned = await (await caller(['USER_ROLES.GRANT', 'AUDIT.READ'])).call(
      'PUT',
      `/idp/userGroups/${empty}/roles/assign`,
      body,
    );
    expect(assigned.status).toBe(200);

    const inactive = await putTestUserGroup(org.orgId, { status: 'INACTIVE', roles: [auditor.id] });
    const updater = await caller(['USER_GROUP.UPDATE']);
    expect(
      (await updater.call('PATCH', `/idp/userGroups/${inactive}`, { description: 'renamed only' })).status,
    ).toBe(200);
    expectBeyond(
      await updater.call('PATCH', `/idp/userGroups/${inactive}`, { status: 'ACTIVE' }),
      'AUDIT.READ',
    );
    // Active already, the group gives nothing new: an edit sending its status as it is (the
    // console's form does) is no activation.
    const active = await putTestUserGroup(org.orgId, { roles: [auditor.id] });
    const edit = { name: `Edited ${Date.now()}`, status: 'ACTIVE' };
    expect((await updater.call('PATCH', `/idp/userGroups/${active}`, edit)).status).toBe(200);
    const activating = await caller(['USER_GROUP.UPDATE', 'AUDIT.READ']);
    expect((await activating.call('PATCH', `/idp/userGroups/${inactive}`, { status: 'ACTIVE' })).status).toBe(
      200,
    );
  });

  it('checks an activation against the group as written: one deactivated after an edit read it is not activated by a caller lacking its roles', async () => {
    const group = await putTestUserGroup(org.orgId, { roles: [auditor.id] });
    const updater = await caller(['USER_GROUP.UPDATE']);
    // The group is ACTIVE when the edit (sending its status as it is) reads it; an administrator
    // deactivates it just before the edit's write, which then finds it INACTIVE and retries.
    const marker = `edit ${Date.now()}`;
    let deactivation: number | undefined;
    const hook = beforeCommand(putsGroupWith(group, marker), async () => {
      deactivation = (await admin().call('PATCH', `/idp/userGroups/${group}`, { status: 'INACTIVE' })).status;
    });
    try {
      const edit = await updater.call('PATCH', `/idp/userGroups/${group}`, {
        status: 'ACTIVE',
        description: marker,
      });
      expect(hook.ran).toBe(true);
      expect(deactivation).toBe(200);
      // Deactivation first: the edit is an activation, beyond the caller.
      expectBeyond(edit, 'AUDIT.READ');
    } finally {
      hook.stop();
    }
    expect(await groupStatus(group)).toBe('INACTIVE');
  });

  it('changes how a member of an INACTIVE group signs in only within what the group gives once activated', async () => {
    const group = await putTestUserGroup(org.orgId, { status: 'INACTIVE', roles: [auditor.id] });
    const member = await newUser();
    expect((await admin().call('PUT', `/idp/users/${member}/userGroups/${group}`)).status).toBe(200);
    const email = `taken-${Date.now()}@example.com`;
    // Positive control: a caller holding what the group gives moves the member's email.
    const holding = await caller(['USER.UPDATE', 'AUDIT.READ']);
    expect((await holding.call('PUT', `/idp/users/${member}`, { name: 'Member', email })).status).toBe(200);
    // One lacking it may not: the account, its group activated again, would hold AUDIT.READ.
    const limited = await caller(['USER.UPDATE']);
    expectBeyond(
      await limited.call('PUT', `/idp/users/${member}`, { name: 'Member', email: `other-${email}` }),
      'AUDIT.READ',
    );
    expect((await userOf(member)).email).toBe(email);
  });

  it('makes a role the default only when the caller holds what it gives', async () => {
    const refused = await (await caller(['ROLES.UPDATE'])).call('POST', '/idp/setDefaultRole', {
      roleId: 'administrator',
    });
    expectBeyond(refused, 'AUDIT.READ');
    // Many lacking: the first five are named, then how many more.
    expect((refused.body as ApiError).message).toMatch(/AUDIT\.READ.* and \d+ more$/);
    expect(
      (await admin().call<{ roleId?: string }>('GET', '/idp/getDefaultRole')).body.roleId,
    ).toBeUndefined();
    const holding = await caller(['ROLES.UPDATE', 'AUDIT.READ']);
    expect((await holding.call('POST', '/idp/setDefaultRole', { roleId: auditor.id })).status).toBe(204);
    expect((await admin().call('DELETE', '/idp/clearDefaultRole')).status).toBe(204);
  });
});

describe("a role's permissions", () => {
  it('creates a role only with permissions the caller holds, dependencies included', async () => {
    const body = { name: `Scim ${Date.now()}`, permissions: ['SCIM.ADMIN'] };
    expectBeyond(await (await caller(['ROLES.ADD'])).call('POST', '/idp/roles', body), 'SCIM.ADMIN');
    expect((await (await caller(['ROLES.ADD', 'SCIM.ADMIN'])).call('POST', '/idp/roles', body)).status).toBe(
      204,
    );
    // An unknown id is still the 400 that names it, not a 403.
    const unknown = await (await caller(['ROLES.ADD'])).call('POST', '/idp/roles', {
      name: 'X',
      permissions: ['NO.SUCH'],
    });
    expect(unknown.status).toBe(400);
  });

  it('adds to a role only what the caller holds; what the role keeps or loses needs nothing', async () => {
    const role = await putTestRole(org.orgId, { permissions: ['AUDIT.READ', 'ROLES.LIST'] });
    const updater = await caller(['ROLES.UPDATE']);
    const path = `/idp/roles/${role.id}`;
    expectBeyond(
      await updater.call('PUT', path, { permissions: ['AUDIT.READ', 'ROLES.LIST', 'SCIM.ADMIN'] }),
      'SCIM.ADMIN',
    );
    expectBeyond(
      await updater.call('POST', `${path}/permissions/assign`, { permissionIds: ['SCIM.ADMIN'] }),
      'SCIM.ADMIN',
    );
    // Keeping AUDIT.READ, which the caller lacks, is no gift; dropping it neither.
    expect((await updater.call('PUT', path, { permissions: ['AUDIT.READ'] })).status).toBe(204);
    expect((await updater.call('PUT', path, { permissions: [] })).status).toBe(204);
    const holding = await caller(['ROLES.UPDATE', 'SCIM.ADMIN']);
    expect(
      (await holding.call('POST', `${path}/permissions/assign`, { permissionIds: ['SCIM.ADMIN'] })).status,
    ).toBe(204);
  });
});

describe('API clients', () => {
  it('registers a client only with roles the caller holds, and a STANDARD one only by a STANDARD caller', async () => {
    const body = { name: 'Auditor app', clientType: 'STANDARD', roles: [auditor.id] };
    expectBeyond(
      await (await caller(['API_CLIENTS.WRITE'])).call('POST', '/idp/clients', body),
      'AUDIT.READ',
    );
    expect(
      (await (await caller(['API_CLIENTS.WRITE', 'AUDIT.READ'])).call('POST', '/idp/clients', body)).status,
    ).toBe(201);
    const restricted = await caller(['API_CLIENTS.WRITE', 'AUDIT.READ'], 'RESTRICTED');
    const widened = await restricted.call('POST', '/idp/clients', body);
    expect(widened.status).toBe(403);
    expect((widened.body as ApiError).message).toBe(
      'A RESTRICTED caller cannot make a STANDARD user or client',
    );
    expect(
      (await restricted.call('POST', '/idp/clients', { ...body, clientType: 'RESTRICTED', policies: [] }))
        .status,
    ).toBe(201);
  });

  it('replaces the secret of, changes or deletes only a client holding nothing the caller lacks', async () => {
    const powerful = await service.callerWith(['AUDIT.READ'], { organization: org.orgId });
    const plain = await service.callerWith([], { organization: org.orgId });
    const writer = await caller(['API_CLIENTS.WRITE']);
    const powerfulId = clientIdOf(powerful.token);
    expectBeyond(await writer.call('POST', `/idp/clients/${powerfulId}/rotateSecret`), 'AUDIT.READ');
    expectBeyond(await writer.call('DELETE', `/idp/clients/${powerfulId}`), 'AUDIT.READ');
    // Changing where its credentials may be used from is the client's too.
    const narrowed = { remoteAddresses: ['203.0.113.0/24'] };
    expectBeyond(await writer.call('PATCH', `/idp/clients/${powerfulId}`, narrowed), 'AUDIT.READ');
    expect((await writer.call('PATCH', `/idp/clients/${clientIdOf(plain.token)}`, narrowed)).status).toBe(
      200,
    );
    // The powerful client still authenticates with its secret.
    expect((await service.requestToken(powerfulId, powerful.clientSecret)).status).toBe(200);
    expect((await writer.call('POST', `/idp/clients/${clientIdOf(plain.token)}/rotateSecret`)).status).toBe(
      200,
    );
  });
});

describe('a RESTRICTED caller and STANDARD principals', () => {
  it('takes over no STANDARD client holding nothing more: not its secret, not where it is used from', async () => {
    const restricted = await caller(['API_CLIENTS.WRITE'], 'RESTRICTED');
    const standard = clientIdOf((await service.callerWith([], { organization: org.orgId })).token);
    const restrictedTarget = clientIdOf(
      (await service.callerWith([], { organization: org.orgId, clientType: 'RESTRICTED' })).token,
    );
    // Positive control: the same calls on a RESTRICTED client holding as little.
    expect((await restricted.call('POST', `/idp/clients/${restrictedTarget}/rotateSecret`)).status).toBe(200);
    const narrowed = { remoteAddresses: ['203.0.113.0/24'] };
    expect((await restricted.call('PATCH', `/idp/clients/${restrictedTarget}`, narrowed)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', `/idp/clients/${standard}/rotateSecret`, undefined],
      ['PATCH', `/idp/clients/${standard}`, narrowed],
      ['DELETE', `/idp/clients/${standard}`, undefined],
    ] as const) {
      const refused = await restricted.call(method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect((refused.body as ApiError).message).toBe(
        'A RESTRICTED caller cannot change a STANDARD user or client',
      );
    }
  });

  it("changes no STANDARD user's email, status, MFA or sessions, though the user holds nothing more", async () => {
    const restricted = await caller(['USER.UPDATE', 'USER.DELETE'], 'RESTRICTED');
    const [standard, restrictedUser] = await Promise.all([newUser('STANDARD'), newUser('RESTRICTED')]);
    const email = () => `moved-${Date.now()}-${Math.random()}@ceiling.example`;
    // Positive control: a RESTRICTED user holding as little.
    expect(
      (await restricted.call('PUT', `/idp/users/${restrictedUser}`, { name: 'R', email: email() })).status,
    ).toBe(200);
    for (const [method, path, body] of [
      ['PUT', `/idp/users/${standard}`, { name: 'Taken', email: email() }],
      ['PUT', `/idp/users/${standard}/setUserStatus`, { userStatus: 'INACTIVE' }],
      ['PUT', `/idp/users/${standard}/resetMfa`, undefined],
      ['PUT', `/idp/users/${standard}/endSessions`, undefined],
    ] as const)
      expect((await restricted.call(method, path, body)).status, `${method} ${path}`).toBe(403);
    // Renaming is no way into the account.
    expect((await restricted.call('PUT', `/idp/users/${standard}`, { name: 'Renamed' })).status).toBe(200);
  });

  it("changes no group membership: user groups are STANDARD callers' routes", async () => {
    const group = await putTestUserGroup(org.orgId, {});
    const member = await newUser();
    const path = `/idp/users/${member}/userGroups/${group}`;
    const permissions: PermissionId[] = ['USER_GROUP.GRANT', 'USER_GROUP.REVOKE'];
    expect((await (await caller(permissions, 'RESTRICTED')).call('PUT', path)).status).toBe(403);
    expect((await (await caller(permissions, 'RESTRICTED')).call('DELETE', path)).status).toBe(403);
    expect((await (await caller(permissions)).call('PUT', path)).status).toBe(200);
  });
});

describe("a RESTRICTED caller's policies", () => {
  it('bound what it gives and whom it takes over; a STANDARD caller is bound by none', async () => {
    const policy = async (name: string) =>
      idFromLocation(await admin().call('POST', '/idp/policies', { name: `${name} ${Date.now()}` }));
    const [own, other] = [await policy('Own region'), await policy('Other region')];
    const role = await putTestRole(org.orgId, { permissions: ['API_CLIENTS.WRITE', 'USER_POLICIES.GRANT'] });
    // What the RESTRICTED caller gives the clients it registers: not its own role, whose
    // API_CLIENTS.READ (a dependency of WRITE) would read every client's secret.
    const given = await putTestRole(org.orgId, { permissions: ['USER_POLICIES.GRANT'] });
    const register = (as: ReturnType<typeof admin>, policies: string[], roles = [given.id]) =>
      as.call<{ id: string; clientSecret: string }>('POST', '/idp/clients', {
        name: `restricted ${Date.now()}`,
        clientType: 'RESTRICTED',
        roles,
        policies,
      });
    const registered = await register(admin(), [own], [role.id]);
    expect(registered.status).toBe(201);
    const restricted = as(await service.token(registered.body.id, registered.body.clientSecret));
    const user = await newUser('RESTRICTED');
    // Positive controls: within its own policy.
    const withOwn = await register(restricted, [own]);
    expect(withOwn.status).toBe(201);
    expect((await restricted.call('PUT', `/idp/users/${user}/policies/${own}`)).status).toBe(204);
    expect((await restricted.call('POST', `/idp/clients/${withOwn.body.id}/rotateSecret`)).status).toBe(200);
    // Beyond it: refused, naming the policy, and nothing given.
    const refusedClient = await register(restricted, [other]);
    expect(refusedClient.status).toBe(403);
    expect((refusedClient.body as unknown as ApiError).message).toBe(
      `This client's policies would give policies the caller does not hold: ${other}`,
    );
    const refusedGrant = await restricted.call('PUT', `/idp/users/${user}/policies/${other}`);
    expect(refusedGrant.status).toBe(403);
    const holdingOther = await register(admin(), [other]);
    expect((await restricted.call('POST', `/idp/clients/${holdingOther.body.id}/rotateSecret`)).status).toBe(
      403,
    );
    // A STANDARD caller holding the same permissions gives any policy: policies bound RESTRICTED callers.
    const standard = await caller(['API_CLIENTS.WRITE', 'USER_POLICIES.GRANT']);
    expect((await standard.call('PUT', `/idp/users/${user}/policies/${other}`)).status).toBe(204);
  });
});

describe('applications people sign in through', () => {
  const application = {
    name: 'Shop',
    clientType: 'STANDARD',
    flowType: 'authorization_code',
    redirectUris: ['https://shop.example/callback'],
  };

  it('are registered, redirected or given a new secret only by a caller holding every permission', async () => {
    const writer = await caller(['API_CLIENTS.WRITE', 'API_CLIENTS.READ']);
    // Its tokens carry the permissions of whoever signs in, an administrator's too.
    expectBeyond(await writer.call('POST', '/idp/clients', application), 'AUDIT.READ');
    const registered = await admin().call<{ id: string }>('POST', '/idp/clients', application);
    expect(registered.status).toBe(201);
    const id = registered.body.id;
    const elsewhere = { redirectUris: ['https://attacker.example/callback'] };
    expectBeyond(await writer.call('PATCH', `/idp/clients/${id}`, elsewhere), 'AUDIT.READ');
    expectBeyond(await writer.call('POST', `/idp/clients/${id}/rotateSecret`), 'AUDIT.READ');
    // Positive control: a caller holding every permission does each.
    expect((await admin().call('PATCH', `/idp/clients/${id}`, { name: 'Shop renamed' })).status).toBe(200);
    expect((await admin().call('POST', `/idp/clients/${id}/rotateSecret`)).status).toBe(200);
  });
});

describe("another user's sign-in", () => {
  /** A user holding AUDIT.READ, whom a caller with only USER.UPDATE (or USER.DELETE) may not take over. */
  const privileged = async () => {
    const id = await newUser();
    expect((await admin().call('PUT', `/idp/users/${id}/roles/${auditor.id}/grant`)).status).toBe(204);
    return id;
  };

  it("changes another user's email, status, type or sessions only when that user holds nothing the caller lacks", async () => {
    const target = await privileged();
    const plainUser = await newUser();
    const updater = await caller(['USER.UPDATE', 'USER.DELETE']);
    const email = `taken-over-${Date.now()}@ceiling.example`;
    expectBeyond(await updater.call('PUT', `/idp/users/${target}`, { name: 'Boss', email }), 'AUDIT.READ');
    expect((await userOf(target)).email).not.toBe(email);
    // The name alone is no way into the account; a user holding nothing more is fine.
    expect((await updater.call('PUT', `/idp/users/${target}`, { name: 'Renamed' })).status).toBe(200);
    expect((await updater.call('PUT', `/idp/users/${plainUser}`, { name: 'Plain', email })).status).toBe(200);
    expectBeyond(
      await updater.call('PUT', `/idp/users/${target}/setUserStatus`, { userStatus: 'INACTIVE' }),
      'AUDIT.READ',
    );
    expectBeyond(await updater.call('PUT', `/idp/users/${target}/userType/restricted`), 'AUDIT.READ');
    expectBeyond(await updater.call('PUT', `/idp/users/${target}/resetMfa`), 'AUDIT.READ');
    expectBeyond(await updater.call('PUT', `/idp/users/${target}/endSessions`), 'AUDIT.READ');
    const holding = await caller(['USER.UPDATE', 'USER.DELETE', 'AUDIT.READ']);
    expect((await holding.call('PUT', `/idp/users/${target}/endSessions`)).status).toBe(204);
    expect(
      (await holding.call('PUT', `/idp/users/${target}/setUserStatus`, { userStatus: 'INACTIVE' })).status,
    ).toBe(204);
  });

  it('lets no one change their own user type, and no RESTRICTED caller make anyone STANDARD', async () => {
    const self = await newUser('RESTRICTED');
    expect(
      (
        await admin().call(
          'PUT',
          `/idp/users/${self}/roles/${(await putTestRole(org.orgId, { permissions: ['USER.UPDATE', 'USER.ADD'] })).id}/grant`,
        )
      ).status,
    ).toBe(204);
    const own = as(await service.userToken(self, org.orgId));
    const selfChange = await own.call('PUT', `/idp/users/${self}/userType/standard`);
    expect(selfChange.status).toBe(403);
    expect((selfChange.body as ApiError).message).toBe('No one changes their own user type');
    const other = await newUser('RESTRICTED');
    expect((await own.call('PUT', `/idp/users/${other}/userType/standard`)).status).toBe(403);
    const createAs = async (userType: 'STANDARD' | 'RESTRICTED') =>
      (
        await own.call('POST', '/idp/users', {
          email: `${userType.toLowerCase()}-${Date.now()}@ceiling.example`,
          name: userType,
          userType,
        })
      ).status;
    expect(await createAs('STANDARD')).toBe(403);
    // Positive controls: RESTRICTED is within a RESTRICTED caller's reach; a STANDARD one may widen.
    expect(await createAs('RESTRICTED')).toBe(204);
    expect(
      (await (await caller(['USER.UPDATE'])).call('PUT', `/idp/users/${other}/userType/standard`)).status,
    ).toBe(204);
  });
});
