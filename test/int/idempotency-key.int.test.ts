import { createHash } from 'node:crypto';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { logger } from '../../shared/http/logger.js';
import { errorResponse } from '../../shared/http/middleware/error-response.js';
import { idempotency, type RecordedSecret } from '../../shared/http/middleware/idempotency.js';
import { countMetric } from '../../shared/observability/metrics.js';
import { idempotencyRecords } from '../../shared/store/idempotency-records.js';
import { keys } from '../../shared/store/keys.js';
import { fileTable, useDatabase } from '../support/database.js';
import { getItem } from '../support/records.js';

/**
 * `Idempotency-Key` (shared/http/middleware/idempotency.ts) over Powertools Idempotency and the
 * service's table (shared/store/idempotency-records.ts), the middleware in a Middy chain of its
 * own around a handler that counts its executions: one execution per key, caller, route and path.
 */

vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));

useDatabase();

afterEach(() => {
  vi.mocked(countMetric).mockClear();
  vi.restoreAllMocks();
});

type Answer = APIGatewayProxyStructuredResultV2;

const context = { getRemainingTimeInMillis: () => 30_000, awsRequestId: 'aws' } as unknown as Context;

/** A write of `caller` with `key` (none: no header) and a JSON body, as the chain has it by then. */
const write = (
  key: string | undefined,
  body: Record<string, unknown> = { name: 'a' },
  target: { org?: string; sub?: string; routeKey?: string; rawPath?: string } = {},
) =>
  ({
    headers: key === undefined ? {} : { 'idempotency-key': key },
    routeKey: target.routeKey ?? 'POST /idp/users',
    rawPath: target.rawPath ?? '/idp/users',
    body,
    requestContext: {
      requestId: `request-${Math.random()}`,
      authorizer: { jwt: { claims: { org: target.org ?? 'org-1', sub: target.sub ?? 'client-1' } } },
    },
  }) as unknown as APIGatewayProxyEventV2;

/** A handler behind the middleware, counting executions; `run` decides each answer. */
const service = (run: (execution: number) => Promise<Answer> | Answer, recordedSecret?: RecordedSecret) => {
  let executions = 0;
  const handler = middy<APIGatewayProxyEventV2, Answer>()
    .use(errorResponse())
    .use(idempotency(recordedSecret))
    .handler(async () => run(++executions));
  return {
    send: (event: APIGatewayProxyEventV2) => handler(event, context) as Promise<Answer>,
    executions: () => executions,
  };
};

const created = (execution: number): Answer => ({
  statusCode: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ id: `id-${execution}` }),
});

const statusAndMessage = (answer: Answer) => [answer.statusCode, JSON.parse(String(answer.body)).message];

/** A key no other test uses. */
const newKey = () => `key-${Math.random().toString(36).slice(2)}`;

/** Where Powertools keeps the record of a key for this caller and target (its own hash of the event key). */
const recordOf = (key: string, org = 'org-1', sub = 'client-1') => {
  const hash = createHash('sha256')
    .update(JSON.stringify([key, org, sub, 'POST /idp/users', '/idp/users']))
    .digest('base64');
  return getItem(keys.idempotencyRecord(`idp#${hash}`));
};

describe('Idempotency-Key', () => {
  it('runs a request once and answers its repeats with the recorded answer', async () => {
    const { send, executions } = service(created);
    const key = newKey();
    const first = await send(write(key));
    expect(first).toEqual(created(1));
    expect(countMetric).not.toHaveBeenCalled();
    expect(await send(write(key))).toEqual(created(1));
    expect(await send(write(key, { name: 'a' }))).toEqual(created(1));
    expect(executions()).toBe(1);
    expect(countMetric).toHaveBeenCalledWith('IdempotentReplays');
    expect(await recordOf(key)).toMatchObject({ status: 'COMPLETED' });
  });

  it('steps aside without the header', async () => {
    const { send, executions } = service(created);
    const warn = vi.spyOn(logger, 'warn');
    expect(await send(write(undefined))).toEqual(created(1));
    expect(await send(write(undefined))).toEqual(created(2));
    expect(executions()).toBe(2);
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers 500 when the records cannot be reached, running nothing', async () => {
    const { send, executions } = service(created);
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    process.env.IDP_TABLE_NAME = 'no-such-table';
    reloadConfig();
    try {
      expect((await send(write(newKey()))).statusCode).toBe(500);
    } finally {
      process.env.IDP_TABLE_NAME = fileTable();
      reloadConfig();
    }
    expect(executions()).toBe(0);
  });

  it('keeps one record per caller, organization, route and path', async () => {
    const { send, executions } = service(created);
    const key = newKey();
    await send(write(key));
    for (const target of [
      { sub: 'client-2' },
      { org: 'org-2' },
      { routeKey: 'POST /idp/roles', rawPath: '/idp/roles' },
      { rawPath: '/idp/users/other' },
    ]) {
      await send(write(key, { name: 'a' }, target));
    }
    expect(executions()).toBe(5);
  });

  it('refuses a repeat with another body (422), running nothing', async () => {
    const { send, executions } = service(created);
    const key = newKey();
    await send(write(key, { name: 'a' }));
    const refused = await send(write(key, { name: 'b' }));
    expect(statusAndMessage(refused)).toEqual([
      422,
      'Idempotency-Key was already used with a different request body',
    ]);
    expect(executions()).toBe(1);
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'a key'],
    ['a character beyond ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('refuses a key of %s (400), running nothing', async (_case, key) => {
    const { send, executions } = service(created);
    // Positive control: 255 visible ASCII characters are a key.
    expect((await send(write(newKey().padEnd(255, 'k')))).statusCode).toBe(201);
    const refused = await send(write(key));
    expect(statusAndMessage(refused)).toEqual([
      400,
      'Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces)',
    ]);
    expect(executions()).toBe(1);
  });

  it('refuses a repeat while the first request runs (409), and frees nothing for a third', async () => {
    let finish: (answer: Answer) => void = () => undefined;
    const { send, executions } = service((execution) =>
      execution === 1 ? new Promise<Answer>((resolve) => (finish = resolve)) : created(execution),
    );
    const key = newKey();
    const first = send(write(key));
    await vi.waitFor(async () => expect(await recordOf(key)).toMatchObject({ status: 'INPROGRESS' }));
    for (let repeat = 0; repeat < 2; repeat++) {
      expect(statusAndMessage(await send(write(key)))).toEqual([
        409,
        'A request with this Idempotency-Key is still in progress',
      ]);
    }
    expect(executions()).toBe(1);
    finish(created(1));
    expect(await first).toEqual(created(1));
    expect(await send(write(key))).toEqual(created(1));
    expect(executions()).toBe(1);
  });

  it('frees the key of a request that failed, so a retry runs', async () => {
    const { send, executions } = service((execution) => {
      if (execution === 1) throw new Error('the write failed');
      return created(execution);
    });
    const key = newKey();
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    expect((await send(write(key))).statusCode).toBe(500);
    expect(await recordOf(key)).toBeUndefined();
    expect(await send(write(key))).toEqual(created(2));
    expect(executions()).toBe(2);
  });

  it('records an answer without its secret, and a replay asks for the secret again', async () => {
    const reread = vi.fn(async (body: Record<string, unknown>) => `secret-again-of-${body.id}`);
    const { send, executions } = service(
      (execution) => ({
        statusCode: 201,
        body: JSON.stringify({ id: `id-${execution}`, clientSecret: 'the secret' }),
      }),
      { field: 'clientSecret', reread },
    );
    const key = newKey();
    const first = await send(write(key));
    expect(JSON.parse(String(first.body))).toEqual({ id: 'id-1', clientSecret: 'the secret' });
    expect(JSON.stringify(await recordOf(key))).not.toContain('the secret');
    const replay = await send(write(key));
    expect(replay.statusCode).toBe(201);
    expect(JSON.parse(String(replay.body))).toEqual({ id: 'id-1', clientSecret: 'secret-again-of-id-1' });
    expect(reread).toHaveBeenCalledWith({ id: 'id-1' }, expect.anything());
    expect(executions()).toBe(1);
  });

  it('answers a request whose record cannot be completed, and logs why', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    // More than a DynamoDB item holds: the answer goes out, its record cannot be written.
    const huge = (execution: number): Answer => ({
      statusCode: 201,
      body: JSON.stringify({ id: `id-${execution}`, clientSecret: 's', padding: 'x'.repeat(450 * 1024) }),
    });
    const { send, executions } = service(huge, { field: 'clientSecret', reread: async () => 'again' });
    const key = newKey();
    const event = write(key);
    const answer = await send(event);
    expect(answer).toEqual(huge(1));
    expect(warn).toHaveBeenCalledWith('an Idempotency-Key record could not be completed', {
      requestId: event.requestContext.requestId,
      error: expect.any(String),
    });
    // The record stays in progress: a repeat is refused rather than run again.
    expect((await send(write(key))).statusCode).toBe(409);
    expect(executions()).toBe(1);
  });
});

describe("the idempotency records' persistence", () => {
  it('is one per process, on the store’s DynamoDB client, following it when the store moves', () => {
    const layer = idempotencyRecords();
    expect(idempotencyRecords()).toBe(layer);
    process.env.IDP_TABLE_NAME = 'another-table';
    reloadConfig();
    expect(idempotencyRecords()).not.toBe(layer);
    process.env.IDP_TABLE_NAME = fileTable();
    reloadConfig();
  });
});
