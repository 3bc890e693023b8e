import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../shared/auth/passwords.js';
import { IDEMPOTENCY_KEY_PREFIX } from '../../shared/http/middleware/powertools-idempotency.js';
import { batchPut } from '../../shared/store/batch.js';
import { keys } from '../../shared/store/keys.js';
import { createRole } from '../../shared/store/role-repository.js';
import { createUser, storedUser, updateUserAttributes } from '../../shared/store/user-repository.js';
import { type Call, measureRoundTrips } from '../support/round-trips.js';
import type { ApiResponse } from '../support/service.js';
import { getItem, uniqueEmail, useService } from '../support/service.js';

/**
 * `Idempotency-Key` runs a write exactly once, whatever the concurrency: of 20 parallel repeats one
 * runs, the others answer its response or 409 (still running); later repeats replay it; another
 * body is 422; a refused request frees the key; another caller's key is another key. Responses
 * carrying a client secret are recorded without it.
 */
const service = useService();

const PARALLEL = 20;
const EMAIL_TAKEN = 'A user with this email already exists in the organization';
let keyCounter = 0;
const freshKey = (family: string) => `${family}-${Date.now()}-${keyCounter++}`;

const send = (method: string, path: string, key: string, body?: unknown) =>
  service.call<Record<string, unknown>>(method, path, {
    token: service.admin.token,
    ...(body === undefined ? {} : { body }),
    headers: { 'idempotency-key': key },
  });

const count = async (path: string): Promise<number> => {
  const response = await service.call<unknown[] | { count: number }>('GET', path, {
    token: service.admin.token,
  });
  expect(response.status).toBe(200);
  return Array.isArray(response.body) ? response.body.length : response.body.count;
};

/** What a caller can tell two answers apart by. */
const answerOf = (response: ApiResponse<Record<string, unknown>>) => ({
  status: response.status,
  location: response.headers.get('location'),
  retryAfter: response.headers.get('retry-after'),
  body: response.body,
});

/**
 * Fires PARALLEL identical requests with one key, then one more after they all finished: exactly
 * one ran (the count moved by `writes`), every answer is the winner's or the documented 409.
 */
const fireRepeats = async (
  method: string,
  path: string,
  body: unknown,
  counted: string | undefined,
  writes = 1,
) => {
  const key = freshKey(path);
  const before = counted ? await count(counted) : 0;
  const answers = await Promise.all(
    Array.from({ length: PARALLEL }, () => send(method, path, key, body).then(answerOf)),
  );
  const successes = answers.filter((answer) => answer.status < 300);
  const busy = answers.filter((answer) => answer.status === 409);
  expect(successes.length).toBeGreaterThanOrEqual(1);
  expect(successes.length + busy.length).toBe(PARALLEL);
  for (const answer of successes) expect(answer).toEqual(successes[0]);
  for (const answer of busy) {
    expect(answer.body.message).toBe('A request with this Idempotency-Key is still in progress');
    // Worth repeating in a moment: the typed client does.
    expect(answer.retryAfter).toBe('1');
  }
  if (counted) expect(await count(counted)).toBe(before + writes);
  const replay = answerOf(await send(method, path, key, body));
  expect(replay).toEqual(successes[0]);
  if (counted) expect(await count(counted)).toBe(before + writes);
  return { key, first: successes[0] as ReturnType<typeof answerOf> };
};

interface TransactionInput {
  TransactItems?: { Update?: { Key: { pk: unknown }; UpdateExpression: string } }[];
}

/** A transaction that adds to a set of the item in `partition` (a grant to a user). */
const grantsTo =
  (partition: string) =>
  ({ command, input }: Call): boolean =>
    command === 'TransactWriteCommand' &&
    ((input as TransactionInput).TransactItems ?? []).some(
      (item) => item.Update?.Key.pk === partition && item.Update.UpdateExpression.startsWith('ADD '),
    );

const newUserBody = () => ({
  email: `person-${freshKey('u')}@example.com`,
  name: 'Idempotent Person',
  userType: 'STANDARD',
});

describe('20 parallel repeats of one Idempotency-Key run the write once', () => {
  it('create user', async () => {
    await fireRepeats('POST', '/idp/users', newUserBody(), '/idp/users');
  });

  it('create client (the secret is shown again on a replay)', async () => {
    const { first } = await fireRepeats(
      'POST',
      '/idp/clients',
      { name: `Client ${freshKey('c')}`, clientType: 'STANDARD' },
      '/idp/clients',
    );
    expect(first.status).toBe(201);
    expect(String(first.body.clientSecret)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('create role', async () => {
    await fireRepeats('POST', '/idp/roles', { name: `Role ${freshKey('r')}`, permissions: [] }, '/idp/roles');
  });

  it('duplicate group', async () => {
    const group = await service.call<{ userGroup: { id: string } }>('POST', '/idp/userGroups', {
      token: service.admin.token,
      body: { name: `Group ${freshKey('g')}` },
    });
    expect(group.status).toBe(201);
    await fireRepeats(
      'POST',
      `/idp/userGroups/${group.body.userGroup.id}/duplicate`,
      undefined,
      '/idp/userGroups/count',
    );
  });

  it('grant a role to a user (its executions counted: the grant transactions sent)', async () => {
    const userId = await service.createUser({ email: `grantee-${freshKey('g')}@example.com` });
    const role = await send('POST', '/idp/roles', freshKey('role'), {
      name: `Granted ${freshKey('r')}`,
      permissions: [],
    });
    const roleId = String(role.headers.get('location')).split('/').pop() as string;
    // A grant adds to a set, so what it leaves behind cannot tell one execution from twenty: count
    // the transactions that add the role to the user instead (the service runs in this process).
    const { recorded } = await measureRoundTrips('20 repeats of one grant and a replay', () =>
      fireRepeats('PUT', `/idp/users/${userId}/roles/${roleId}/grant`, undefined, undefined),
    );
    expect(recorded.filter(grantsTo(keys.user(service.organizationId, userId).pk))).toHaveLength(1);
    const user = await service.call<{ roles: string[] }>('GET', `/idp/users/${userId}`, {
      token: service.admin.token,
    });
    expect(user.body.roles).toContain(roleId);
  });
});

describe('one key, different bodies', () => {
  it('runs at most one of 10 parallel bodies; the others are 409 or 422; afterwards every other body is 422', async () => {
    const key = freshKey('bodies');
    const before = await count('/idp/users');
    const bodies = Array.from({ length: 10 }, newUserBody);
    const answers = await Promise.all(bodies.map((body) => send('POST', '/idp/users', key, body)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 204)).toHaveLength(1);
    expect(statuses.every((status) => [204, 409, 422].includes(status))).toBe(true);
    expect(await count('/idp/users')).toBe(before + 1);
    const winner = bodies[statuses.indexOf(204)];
    const winnerAnswer = answers[statuses.indexOf(204)] as ApiResponse<Record<string, unknown>>;
    for (const body of bodies.filter((candidate) => candidate !== winner)) {
      expect((await send('POST', '/idp/users', key, body)).status).toBe(422);
    }
    expect(answerOf(await send('POST', '/idp/users', key, winner))).toEqual(answerOf(winnerAnswer));
    expect(await count('/idp/users')).toBe(before + 1);
  });

  it('refuses a key longer than 255 characters or beyond visible ASCII, as the OpenAPI document says, and writes nothing', async () => {
    const before = await count('/idp/users');
    for (const key of ['k'.repeat(256), 'two words', 'cl\u00e9']) {
      expect((await send('POST', '/idp/users', key, newUserBody())).status, key).toBe(400);
    }
    expect((await send('POST', '/idp/users', 'k'.repeat(255), newUserBody())).status).toBe(204);
    expect(await count('/idp/users')).toBe(before + 1);
  });

  it('a refused request frees its key: once what refused it is gone, the same request runs', async () => {
    const key = freshKey('refused');
    const wanted = newUserBody();
    // Another user holds the email: the request under `key` is refused (409, email taken).
    const holder = await send('POST', '/idp/users', freshKey('holder'), wanted);
    expect(holder.status).toBe(204);
    const before = await count('/idp/users');
    const refused = await send('POST', '/idp/users', key, wanted);
    expect([refused.status, refused.body.message]).toEqual([409, EMAIL_TAKEN]);
    expect(await count('/idp/users')).toBe(before);
    // The holder lets the email go; the same request under the same key now runs and succeeds.
    const holderPath = new URL(String(holder.headers.get('location'))).pathname;
    const moved = await service.call('PUT', holderPath, {
      token: service.admin.token,
      body: { email: `moved-${freshKey('email')}@example.com`, name: 'Moved' },
    });
    expect(moved.status).toBe(200);
    const retried = await send('POST', '/idp/users', key, wanted);
    expect(retried.status).toBe(204);
    expect(retried.headers.get('location')).not.toBe(holder.headers.get('location'));
    expect(await count('/idp/users')).toBe(before + 1);
  });

  it('a refused request frees its key: the request changed only where it failed runs under the same key', async () => {
    const taken = newUserBody();
    // Positive control: the request done right (its email free) succeeds.
    expect((await send('POST', '/idp/users', freshKey('holder'), taken)).status).toBe(204);
    const key = freshKey('changed');
    const before = await count('/idp/users');
    const refused = await send('POST', '/idp/users', key, taken);
    expect([refused.status, refused.body.message]).toEqual([409, EMAIL_TAKEN]);
    // Only the email differs (another body under the key would be 422 had the key been kept).
    const fixed = { ...taken, email: `fixed-${freshKey('e')}@example.com` };
    const retried = await send('POST', '/idp/users', key, fixed);
    expect(retried.status).toBe(204);
    expect(await count('/idp/users')).toBe(before + 1);
    // The key now belongs to the request that ran: it replays that one.
    expect(answerOf(await send('POST', '/idp/users', key, fixed))).toEqual(answerOf(retried));
  });
});

describe('one key, other callers', () => {
  const newClientBody = () => ({ name: `Same request ${freshKey('n')}`, clientType: 'STANDARD' });
  const sendAs = (token: string, key: string, body: unknown) =>
    service.call<Record<string, unknown>>('POST', '/idp/clients', {
      token,
      body,
      headers: { 'idempotency-key': key },
    });
  const clientCount = async (token: string) => {
    const listed = await service.call<unknown[]>('GET', '/idp/clients', { token });
    expect(listed.status).toBe(200);
    return listed.body.length;
  };

  it('another client of the organization runs its own request, and is never answered the first', async () => {
    const other = await service.callerWith(['API_CLIENTS.WRITE', 'API_CLIENTS.READ']);
    const key = freshKey('shared');
    const body = newClientBody();
    const first = await sendAs(service.admin.token, key, body);
    expect(first.status).toBe(201);
    // Positive control: the same caller's repeat replays the first answer.
    expect(answerOf(await sendAs(service.admin.token, key, body))).toEqual(answerOf(first));
    const before = await clientCount(service.admin.token);
    const theirs = await sendAs(other.token, key, body);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(theirs.body.clientSecret).not.toBe(first.body.clientSecret);
    expect(await clientCount(service.admin.token)).toBe(before + 1);
  });

  it('the same principal id in another organization runs its own request there', async () => {
    // Principal ids are unique across organizations in practice; a person with the same id in two
    // organizations leaves the organization as the only difference between the two requests.
    const [home, away] = [service.organizationId, (await service.freshOrganization()).orgId];
    const { user } = await createUser({
      organizationId: home,
      email: uniqueEmail('twice'),
      name: 'In two organizations',
      userType: 'STANDARD',
      createdBy: 'test',
    });
    const clientWriter = (organizationId: string) =>
      createRole({
        organizationId,
        name: `client writer ${freshKey('r')}`,
        permissions: ['API_CLIENTS.WRITE', 'API_CLIENTS.READ'],
        createdBy: 'test',
      });
    const [homeRole, awayRole] = await Promise.all([clientWriter(home), clientWriter(away)]);
    await batchPut([
      storedUser({ ...user, roles: new Set([homeRole.id]) }),
      storedUser({ ...user, organizationId: away, roles: new Set([awayRole.id]) }),
    ]);
    const [homeToken, awayToken] = await Promise.all([
      service.userToken(user.id, home),
      service.userToken(user.id, away),
    ]);
    const key = freshKey('person');
    const body = newClientBody();
    const first = await sendAs(homeToken, key, body);
    expect(first.status).toBe(201);
    expect(answerOf(await sendAs(homeToken, key, body))).toEqual(answerOf(first));
    const before = await clientCount(awayToken);
    const there = await sendAs(awayToken, key, body);
    expect(there.status).toBe(201);
    expect(there.body.id).not.toBe(first.body.id);
    expect(await clientCount(awayToken)).toBe(before + 1);
    const read = await service.call('GET', `/idp/clients/${there.body.id}`, { token: awayToken });
    expect(read.status).toBe(200);
  });
});

/**
 * The record of a key, found the way Powertools Idempotency names it: its key prefix and the
 * SHA-256 of the scoping values the middleware selects.
 */
const recordOf = async (key: string, routeKey: string, rawPath: string) => {
  const { orgId, principalId } = service.admin;
  const hash = createHash('sha256')
    .update(JSON.stringify([key, orgId, principalId, routeKey, rawPath]))
    .digest('base64');
  return getItem(keys.idempotencyRecord(`${IDEMPOTENCY_KEY_PREFIX}#${hash}`));
};

describe('records of responses with a client secret', () => {
  it('keep the response without the secret; a replay reads it from the client', async () => {
    const key = freshKey('secret');
    const created = await send('POST', '/idp/clients', key, {
      name: `Secretive ${key}`,
      clientType: 'STANDARD',
    });
    expect(created.status).toBe(201);
    const secret = String(created.body.clientSecret);
    const record = await recordOf(key, 'POST /idp/clients', '/idp/clients');
    expect(record?.status).toBe('COMPLETED');
    expect(JSON.stringify(record)).toContain(String(created.body.id));
    expect(JSON.stringify(record)).not.toContain(secret);
    expect(
      (await send('POST', '/idp/clients', key, { name: `Secretive ${key}`, clientType: 'STANDARD' })).body,
    ).toEqual(created.body);
  });

  it('a rotation replays its secret until another rotation replaces it, then answers 409', async () => {
    const client = await send('POST', '/idp/clients', freshKey('rotated'), {
      name: `Rotated ${freshKey('n')}`,
      clientType: 'STANDARD',
    });
    const path = `/idp/clients/${client.body.id}/rotateSecret`;
    const key = freshKey('rotate');
    const rotated = await send('POST', path, key);
    expect(rotated.status).toBe(200);
    const record = await recordOf(key, 'POST /idp/clients/{id}/rotateSecret', path);
    expect(JSON.stringify(record)).not.toContain(String(rotated.body.clientSecret));
    expect((await send('POST', path, key)).body).toEqual(rotated.body);
    expect((await send('POST', path, freshKey('rotate-again'))).status).toBe(200);
    const stale = await send('POST', path, key);
    expect(stale.status).toBe(409);
    expect(JSON.stringify(stale.body)).not.toContain(String(rotated.body.clientSecret));
  });
});

describe('a password change', () => {
  it('keeps no record of an Idempotency-Key, which would hold a fast hash of the passwords', async () => {
    const email = uniqueEmail('own-password');
    const id = await service.createUser({ email });
    await updateUserAttributes(service.organizationId, id, {
      passwordHash: await hashPassword('the first password of mine'),
    });
    const token = await service.userToken(id);
    const key = freshKey('password');
    const change = () =>
      service.call('PUT', `/idp/users/${id}/changePassword`, {
        token,
        headers: { 'idempotency-key': key },
        body: {
          currentPassword: 'the first password of mine',
          newPassword: 'the second password of mine',
          confirmPassword: 'the second password of mine',
        },
      });
    expect((await change()).status).toBe(204);
    const recordKey = createHash('sha256')
      .update(
        JSON.stringify([
          key,
          service.organizationId,
          id,
          'PUT /idp/users/{id}/changePassword',
          `/idp/users/${id}/changePassword`,
        ]),
      )
      .digest('base64');
    expect(await getItem(keys.idempotencyRecord(`${IDEMPOTENCY_KEY_PREFIX}#${recordKey}`))).toBeUndefined();
    // Positive control of the lookup: a user's creation under a key of its own is recorded.
    const createKey = freshKey('recorded');
    expect(
      (
        await send('POST', '/idp/users', createKey, {
          email: uniqueEmail('rec'),
          name: 'R',
          userType: 'STANDARD',
        })
      ).status,
    ).toBe(204);
    expect(await recordOf(createKey, 'POST /idp/users', '/idp/users')).toBeDefined();
  });
});
