import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_PREFIX } from '../../shared/http/middleware/powertools-idempotency.js';
import { keys } from '../../shared/store/keys.js';
import type { ApiResponse } from '../support/service.js';
import { getItem, useService } from '../support/service.js';

/**
 * `Idempotency-Key` runs a write exactly once, whatever the concurrency: of 20 parallel repeats one
 * runs, the others answer its response or 409 (still running); later repeats replay it; another
 * body is 422. Responses carrying a client secret are recorded without it.
 */
const service = useService();

const PARALLEL = 20;
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
  }
  if (counted) expect(await count(counted)).toBe(before + writes);
  const replay = answerOf(await send(method, path, key, body));
  expect(replay).toEqual(successes[0]);
  if (counted) expect(await count(counted)).toBe(before + writes);
  return { key, first: successes[0] as ReturnType<typeof answerOf> };
};

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

  it('grant a role to a user', async () => {
    const userId = await service.createUser({ email: `grantee-${freshKey('g')}@example.com` });
    const role = await send('POST', '/idp/roles', freshKey('role'), {
      name: `Granted ${freshKey('r')}`,
      permissions: [],
    });
    const roleId = String(role.headers.get('location')).split('/').pop();
    await fireRepeats('PUT', `/idp/users/${userId}/roles/${roleId}/grant`, undefined, undefined);
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
    expect((await send('POST', '/idp/users', key, wanted)).status).toBe(409);
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
