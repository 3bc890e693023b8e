import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { updateApiClient } from '../../shared/store/api-client-repository.js';
import type {
  ApiError,
  ApiPolicy,
  ApiResponse,
  ApiUser,
  ApiUserGroupEnvelope,
  ClientCaller,
} from '../support/service.js';
import {
  createTestOrganization,
  errorFields,
  groupPath,
  groupsApi,
  idFromLocation,
  nextMillisecond,
  permissionsWithout,
  statuses,
  times,
  useFixture,
  useService,
} from '../support/service.js';

/** Policies (spec 4.4): create, list, read, rename and archive, and what archiving hides. */
const service = useService();
const groups = groupsApi(service, service.admin);

const policyPath = (id: string) => `/idp/policies/${id}`;
const uniqueName = (label = 'Policy') => `${label} ${randomUUID().slice(0, 8)}`;

const create = (body: unknown, as = service.admin.token) =>
  service.call<ApiError>('POST', '/idp/policies', { token: as, body });
const read = (id: string, as = service.admin.token) =>
  service.call<ApiPolicy & ApiError>('GET', policyPath(id), { token: as });
const rename = (id: string, body: unknown, as = service.admin.token) =>
  service.call<ApiError>('PUT', policyPath(id), { token: as, body });
const archive = (id: string, as = service.admin.token) =>
  service.call<ApiError>('DELETE', policyPath(id), { token: as });
const list = async (as = service.admin.token) => {
  const response = await service.call<ApiPolicy[]>('GET', '/idp/policies', { token: as });
  expect(response.status).toBe(200);
  return response.body;
};
/** Creates a policy through the API; fails the test unless the answer is 204. */
const newPolicy = async (name = uniqueName(), as = service.admin.token): Promise<ApiPolicy> => {
  const response = await create({ name }, as);
  expect(response.status, JSON.stringify(response.body)).toBe(204);
  return { id: idFromLocation(response), name };
};
/** The listed policies whose name equals `name` case-insensitively. */
const named = async (name: string, as = service.admin.token) =>
  (await list(as)).filter((policy) => policy.name.toLowerCase() === name.toLowerCase());

const expectError = (response: ApiResponse<ApiError>, status: number, message: string) => {
  expect(response.status).toBe(status);
  expect(response.body.status).toBe(status);
  expect(response.body.message).toBe(message);
};
const DUPLICATE = 'A policy with this name already exists';
const NOT_FOUND = 'Policy not found';

const badBodies = [
  ['a missing name', {}, 'body.name'],
  ['an empty name', { name: '' }, 'body.name'],
  ['a blank name', { name: '   ' }, 'body.name'],
  ['a name of the wrong type', { name: 5 }, 'body.name'],
  ['a name over 200 characters', { name: 'p'.repeat(201) }, 'body.name'],
  ['an unknown property', { name: 'Fine name', foo: 1 }, 'body.foo'],
] as const;

const foreign = useFixture(() => service.freshOrganization());

describe('POST /idp/policies', () => {
  it('answers 204 without a body and a Location naming the new policy, which reads back', async () => {
    const name = uniqueName('Created');
    const response = await create({ name });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    const id = idFromLocation(response);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const location = response.headers.get('location') as string;
    expect(location).toBe(`${service.baseUrl}/idp/policies/${id}`);
    const fetched = await service.call('GET', new URL(location).pathname, { token: service.admin.token });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual({ id, name });
    expect(await named(name)).toEqual([{ id, name }]);
  });

  it('trims the name (the schema trims), compares and limits the trimmed name (200)', async () => {
    const name = uniqueName('Padded');
    const { id } = await newPolicy(`  ${name}  `);
    expect((await read(id)).body).toEqual({ id, name });
    // A name is one line: control characters are refused, also where trimming would drop them.
    expect((await create({ name: `${name}\t` })).status).toBe(400);
    expectError(await create({ name: ` ${name.toUpperCase()} ` }), 409, DUPLICATE);
    const longest = `${randomUUID()}${'n'.repeat(164)}`;
    const { id: longestId } = await newPolicy(` ${longest} `);
    expect((await read(longestId)).body).toEqual({ id: longestId, name: longest });
  });

  it('answers 409 for a name taken in any case and creates nothing', async () => {
    const policy = await newPolicy(uniqueName('Audit Access'));
    for (const name of [policy.name, policy.name.toLowerCase(), policy.name.toUpperCase()]) {
      expectError(await create({ name }), 409, DUPLICATE);
    }
    expect(await named(policy.name)).toEqual([policy]);
  });

  it('lets exactly one of 10 concurrent creates of one name succeed', async () => {
    const name = uniqueName('Race');
    const responses = await times(10, (index) => create({ name: index % 2 ? name : name.toUpperCase() }));
    expect(statuses(responses).sort()).toEqual([204, ...Array(9).fill(409)]);
    const winner = responses.find((response) => response.status === 204) as ApiResponse<ApiError>;
    for (const loser of responses.filter((response) => response.status === 409)) {
      expect(loser.body.message).toBe(DUPLICATE);
    }
    expect((await named(name)).map((policy) => policy.id)).toEqual([idFromLocation(winner)]);
  });

  it.each(badBodies)('answers 400 for %s and creates nothing', async (_label, body, field) => {
    const before = await list();
    const response = await create(body);
    expectError(response, 400, 'Invalid body');
    expect(errorFields(response)).toEqual([field]);
    expect(await list()).toEqual(before);
  });
});

describe('permissions', () => {
  it('a caller without DETAILED_PERMISSION.WRITE may read but not create, rename or archive (403)', async () => {
    const policy = await newPolicy();
    const reader = (await service.callerWith(permissionsWithout('DETAILED_PERMISSION.WRITE'))).token;
    expect((decodeJwt(reader).permissions as string[]).includes('DETAILED_PERMISSION.READ')).toBe(true);
    const missing = 'Missing permission: DETAILED_PERMISSION.WRITE';
    const name = uniqueName('Forbidden');
    expectError(await create({ name }, reader), 403, missing);
    expectError(await rename(policy.id, { name }, reader), 403, missing);
    expectError(await archive(policy.id, reader), 403, missing);
    expect(await named(name)).toEqual([]);
    expect((await read(policy.id, reader)).body).toEqual(policy);
    expect(await list(reader)).toEqual(await list());
  });

  it('a caller without DETAILED_PERMISSION.READ may neither list nor read (403)', async () => {
    const policy = await newPolicy();
    const outsider = (await service.callerWith(permissionsWithout('DETAILED_PERMISSION.READ'))).token;
    const missing = 'Missing permission: DETAILED_PERMISSION.READ';
    expectError(await service.call<ApiError>('GET', '/idp/policies', { token: outsider }), 403, missing);
    expectError(await read(policy.id, outsider), 403, missing);
  });

  it('answers 401 to every operation without a token', async () => {
    const { id } = await newPolicy();
    for (const [method, path] of [
      ['GET', '/idp/policies'],
      ['POST', '/idp/policies'],
      ['GET', policyPath(id)],
      ['PUT', policyPath(id)],
      ['DELETE', policyPath(id)],
    ] as const) {
      const body = method === 'POST' || method === 'PUT' ? { name: uniqueName() } : undefined;
      expect((await service.call(method, path, { body })).status).toBe(401);
    }
  });
});

describe('GET /idp/policies', () => {
  it("lists the organization's policies that are not archived, oldest first, and no others", async () => {
    const org = await createTestOrganization();
    const { token: writer } = await service.callerWith(['DETAILED_PERMISSION.WRITE'], {
      organization: org.id,
    });
    expect(await list(writer)).toEqual([]);
    const created: ApiPolicy[] = [];
    for (const name of ['Zulu', 'alpha', 'Mike', 'Bravo']) {
      created.push(await newPolicy(name, writer));
      await nextMillisecond();
    }
    const [zulu, alpha, mike, bravo] = created as [ApiPolicy, ApiPolicy, ApiPolicy, ApiPolicy];
    expect(await list(writer)).toEqual([zulu, alpha, mike, bravo]);
    expect((await archive(alpha.id, writer)).status).toBe(204);
    expect((await rename(mike.id, { name: 'Yankee' }, writer)).status).toBe(204);
    expect(await list(writer)).toEqual([zulu, { id: mike.id, name: 'Yankee' }, bravo]);
    // The same names in another organization are independent of these.
    const theirs = await newPolicy('Zulu', foreign.token);
    expect(await list(writer)).toEqual([zulu, { id: mike.id, name: 'Yankee' }, bravo]);
    const ids = (await list()).map((policy) => policy.id);
    expect(ids).not.toContain(theirs.id);
    expect(ids).not.toContain(zulu.id);
  });
});

describe('GET /idp/policies/{id}', () => {
  it('answers 404 for an unknown, a foreign and an archived policy, never their data', async () => {
    const theirs = await newPolicy(uniqueName('Theirs'), foreign.token);
    const archived = await newPolicy(uniqueName('Archived'));
    expect((await archive(archived.id)).status).toBe(204);
    for (const { id, name } of [{ id: 'no-such-policy', name: '-' }, theirs, archived]) {
      const response = await read(id);
      expectError(response, 404, NOT_FOUND);
      expect(JSON.stringify(response.body)).not.toContain(name);
    }
    expect((await read(theirs.id, foreign.token)).body).toEqual(theirs);
  });

  it('answers 400 for an id that is not an identifier', async () => {
    const response = await read('bad%20id');
    expectError(response, 400, 'Invalid path parameter');
    expect(errorFields(response)).toEqual(['path.id']);
  });
});

describe('PUT /idp/policies/{id}', () => {
  it('renames: 204, the old name becomes free and the new one taken in any case', async () => {
    const policy = await newPolicy(uniqueName('Old'));
    const other = await newPolicy();
    const newName = uniqueName('New');
    const response = await rename(policy.id, { name: `  ${newName} ` });
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect((await read(policy.id)).body).toEqual({ id: policy.id, name: newName });
    expectError(await create({ name: newName.toLowerCase() }), 409, DUPLICATE);
    expectError(await rename(other.id, { name: newName.toUpperCase() }), 409, DUPLICATE);
    expect((await read(other.id)).body).toEqual(other);
    const reuse = await newPolicy(policy.name);
    expect(reuse.id).not.toBe(policy.id);
    expect(await named(newName)).toEqual([{ id: policy.id, name: newName }]);
  });

  it('renames to a case variant of its own name and to the same name; the name stays taken', async () => {
    const policy = await newPolicy(uniqueName('Casing'));
    const upper = policy.name.toUpperCase();
    expect((await rename(policy.id, { name: upper })).status).toBe(204);
    expect((await read(policy.id)).body).toEqual({ id: policy.id, name: upper });
    expect((await rename(policy.id, { name: upper })).status).toBe(204);
    expect((await rename(policy.id, { name: ` ${upper} ` })).status).toBe(204);
    expect((await read(policy.id)).body).toEqual({ id: policy.id, name: upper });
    expectError(await create({ name: policy.name }), 409, DUPLICATE);
    expect(await named(policy.name)).toEqual([{ id: policy.id, name: upper }]);
  });

  it('answers 404 for an unknown, an archived and a foreign policy and renames nothing', async () => {
    const theirs = await newPolicy(uniqueName('Theirs'), foreign.token);
    const archived = await newPolicy();
    await archive(archived.id);
    const name = uniqueName('Unused');
    for (const id of ['no-such-policy', archived.id, theirs.id]) {
      expectError(await rename(id, { name }), 404, NOT_FOUND);
    }
    expect((await read(theirs.id, foreign.token)).body).toEqual(theirs);
    expect(await named(name)).toEqual([]);
    expect((await newPolicy(name)).name).toBe(name);
  });

  it.each(badBodies)('answers 400 for %s and changes nothing', async (_label, body, field) => {
    const policy = await newPolicy();
    const response = await rename(policy.id, body);
    expectError(response, 400, 'Invalid body');
    expect(errorFields(response)).toEqual([field]);
    expect((await read(policy.id)).body).toEqual(policy);
  });

  it('lets exactly one of two parallel renames to the same new name succeed', async () => {
    for (let round = 0; round < 5; round++) {
      const a = await newPolicy();
      const b = await newPolicy();
      const name = uniqueName('Contested');
      const responses = await Promise.all([
        rename(a.id, { name }),
        rename(b.id, { name: name.toLowerCase() }),
      ]);
      expect(statuses(responses).sort()).toEqual([204, 409]);
      const loser = responses.find((response) => response.status === 409) as ApiResponse<ApiError>;
      expect(loser.body.message).toBe(DUPLICATE);
      const [winner, unchanged] = responses[0]?.status === 204 ? [a, b] : [b, a];
      expect((await named(name)).map((policy) => policy.id)).toEqual([winner.id]);
      expect((await read(unchanged.id)).body).toEqual(unchanged);
      // The winner's old name is free, the loser's still taken.
      expect((await newPolicy(winner.name)).name).toBe(winner.name);
      expectError(await create({ name: unchanged.name }), 409, DUPLICATE);
    }
  });
});

describe('DELETE /idp/policies/{id}', () => {
  it('archives: 204, then unreadable, unlisted, not archivable again; its name reusable', async () => {
    const policy = await newPolicy(uniqueName('Doomed'));
    const response = await archive(policy.id);
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expectError(await read(policy.id), 404, NOT_FOUND);
    expectError(await archive(policy.id), 404, NOT_FOUND);
    expect((await list()).map((listed) => listed.id)).not.toContain(policy.id);
    const successor = await newPolicy(policy.name.toUpperCase());
    expect(successor.id).not.toBe(policy.id);
    expect(await named(policy.name)).toEqual([successor]);
    // Archived again, its name can also be taken by a rename.
    await archive(successor.id);
    const renamed = await newPolicy();
    expect((await rename(renamed.id, { name: policy.name })).status).toBe(204);
    expect(await named(policy.name)).toEqual([{ id: renamed.id, name: policy.name }]);
  });

  it('archiving while a rename runs frees whichever name the policy ends with', async () => {
    for (let round = 0; round < 5; round++) {
      const policy = await newPolicy();
      const name = uniqueName('Renamed');
      const [renamed, archived] = await Promise.all([rename(policy.id, { name }), archive(policy.id)]);
      expect(archived.status).toBe(204);
      expect([204, 404]).toContain(renamed.status);
      expectError(await read(policy.id), 404, NOT_FOUND);
      expect((await newPolicy(policy.name)).name).toBe(policy.name);
      expect((await newPolicy(name)).name).toBe(name);
    }
  });

  it('answers 404 for an unknown and a foreign policy, which stays', async () => {
    const theirs = await newPolicy(uniqueName('Theirs'), foreign.token);
    for (const id of ['no-such-policy', theirs.id]) expectError(await archive(id), 404, NOT_FOUND);
    expect((await read(theirs.id, foreign.token)).body).toEqual(theirs);
  });

  it('an archived policy can be granted neither to a user nor to a user group', async () => {
    const policy = await newPolicy();
    await archive(policy.id);
    const userId = await service.createUser();
    const groupId = (await groups.newGroup({ name: uniqueName('Group') })).id;
    expectError(
      await service.call<ApiError>('PUT', `/idp/users/${userId}/policies/${policy.id}`, {
        token: service.admin.token,
      }),
      404,
      NOT_FOUND,
    );
    expectError(
      await service.call<ApiError>('PUT', groupPath(groupId, '/policies/assign'), {
        token: service.admin.token,
        body: { policyId: policy.id },
      }),
      404,
      NOT_FOUND,
    );
    expect(
      (await service.call<ApiUser>('GET', `/idp/users/${userId}`, { token: service.admin.token })).body
        .policies,
    ).toEqual([]);
    const group = await service.call<ApiUserGroupEnvelope>('GET', groupPath(groupId), {
      token: service.admin.token,
    });
    expect(group.body.userGroup.policies).toEqual([]);
  });

  it('hides the policy from holders: User.policies, UserGroup.policies and token claims', async () => {
    const doomed = await newPolicy();
    const kept = await newPolicy();
    const both = [doomed.id, kept.id].sort();
    const holder = await service.createUser();
    const member = await service.createUser();
    for (const policy of [doomed, kept]) {
      const granted = await service.call('PUT', `/idp/users/${holder}/policies/${policy.id}`, {
        token: service.admin.token,
      });
      expect(granted.status).toBe(204);
    }
    const groupId = (await groups.newGroup({ name: uniqueName('Holders') })).id;
    for (const policy of [doomed, kept]) {
      const assigned = await service.call('PUT', groupPath(groupId, '/policies/assign'), {
        token: service.admin.token,
        body: { policyId: policy.id },
      });
      expect(assigned.status).toBe(200);
    }
    await groups.addMember(member, groupId);

    const restricted = await service.callerWith([], { clientType: 'RESTRICTED' });
    const standard = await service.callerWith([]);
    for (const { principalId: clientId } of [restricted, standard]) {
      await updateApiClient(service.organizationId, clientId, { policies: both }, 'test');
    }

    const userPolicies = async (id: string) =>
      (await service.call<ApiUser>('GET', `/idp/users/${id}`, { token: service.admin.token })).body.policies;
    const groupPolicies = async () =>
      (await service.call<ApiUserGroupEnvelope>('GET', groupPath(groupId), { token: service.admin.token }))
        .body.userGroup.policies;
    const userClaim = async (id: string) => decodeJwt(await service.userToken(id)).policies;
    const clientClaim = async (client: ClientCaller) =>
      decodeJwt(await service.token(client.principalId, client.clientSecret)).policies;

    expect(await userPolicies(holder)).toEqual(both);
    expect(await groupPolicies()).toEqual(both);
    expect(await userClaim(holder)).toEqual(both);
    expect(await userClaim(member)).toEqual(both);
    expect(await clientClaim(restricted)).toEqual(both);
    expect(await clientClaim(standard)).toEqual([]);

    expect((await archive(doomed.id)).status).toBe(204);

    expect(await userPolicies(holder)).toEqual([kept.id]);
    expect(await userPolicies(member)).toEqual([]);
    expect(await groupPolicies()).toEqual([kept.id]);
    expect(await userClaim(holder)).toEqual([kept.id]);
    expect(await userClaim(member)).toEqual([kept.id]);
    expect(await clientClaim(restricted)).toEqual([kept.id]);
    expect(await clientClaim(standard)).toEqual([]);
  });
});
