import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FederationError,
  MAX_ANSWER_BYTES,
  newDeadline,
  upstreamFetch,
} from '../../shared/auth/federation/upstream-http.js';

/**
 * The customFetch every call to an upstream goes through: answers read up to 1 MiB, no redirect
 * followed, one deadline, and unsuccessful answers told apart (a refused client, another refusal,
 * an upstream out of order). Each refusal next to the same call answered right.
 */

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
const handlers = new Map<string, Handler>();
const requested: string[] = [];
const server = createServer((request, response) => {
  requested.push(request.url ?? '');
  const handler = handlers.get(request.url ?? '');
  if (handler) handler(request, response);
  else response.writeHead(404).end();
});
let origin: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const json =
  (status: number, body: unknown): Handler =>
  (_request, response) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

const GET = { method: 'GET', headers: {}, body: undefined, redirect: 'manual' } as const;

/** What the call ends in: the body read, or the FederationError's failure and detail. */
const outcome = async (path: string, fetcher = upstreamFetch(newDeadline(), endpoints())) => {
  try {
    return { body: await (await fetcher(`${origin}${path}`, GET)).text() };
  } catch (error) {
    if (!(error instanceof FederationError)) throw error;
    return { failure: error.failure, detail: error.detail };
  }
};

const endpoints = () => ({
  token_endpoint: `${origin}/token`,
  userinfo_endpoint: `${origin}/userinfo`,
  jwks_uri: `${origin}/jwks`,
});

describe('upstreamFetch', () => {
  it('reads an answer of up to 1 MiB and refuses a larger one, announced or not', async () => {
    // {"p":"…"} is 8 bytes besides the padding.
    const padding = (bytes: number) => 'x'.repeat(bytes - 8);
    handlers.set('/fits', json(200, { p: padding(MAX_ANSWER_BYTES) }));
    expect((await outcome('/fits')).body).toHaveLength(MAX_ANSWER_BYTES);
    handlers.set('/announced', json(200, { p: padding(MAX_ANSWER_BYTES + 1) }));
    expect(await outcome('/announced')).toEqual({
      failure: 'invalid-answer',
      detail: 'the discovery document is too large',
    });
    // Without a content-length: counted while read.
    const chunked =
      (bytes: number): Handler =>
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('x'.repeat(bytes - 1));
        response.end('x');
      };
    handlers.set('/jwks', chunked(MAX_ANSWER_BYTES));
    expect((await outcome('/jwks')).body).toHaveLength(MAX_ANSWER_BYTES);
    handlers.set('/jwks', chunked(MAX_ANSWER_BYTES + 1));
    expect(await outcome('/jwks')).toEqual({ failure: 'invalid-answer', detail: 'the JWKS is too large' });
  });

  it('follows no redirect', async () => {
    handlers.set('/moved', (_request, response) =>
      response.writeHead(302, { location: `${origin}/fits` }).end(),
    );
    const before = requested.filter((path) => path === '/fits').length;
    expect(await outcome('/moved')).toEqual({
      failure: 'unreachable',
      detail: `${origin} answered a redirect (302), not followed`,
    });
    expect(requested.filter((path) => path === '/fits')).toHaveLength(before);
  });

  it('calls nothing once the deadline has passed, and gives up on an answer that does not come by then', async () => {
    handlers.set('/ok', json(200, { ok: true }));
    expect(await outcome('/ok')).toEqual({ body: '{"ok":true}' });
    const calls = requested.length;
    expect(await outcome('/ok', upstreamFetch(Date.now() - 1))).toEqual({
      failure: 'unreachable',
      detail: `${origin}: out of time`,
    });
    expect(requested).toHaveLength(calls);
    const hanging: ServerResponse[] = [];
    handlers.set('/hangs', (_request, response) => hanging.push(response));
    expect(await outcome('/hangs', upstreamFetch(Date.now() + 50))).toEqual({
      failure: 'unreachable',
      detail: `${origin}: TimeoutError`,
    });
    for (const response of hanging) response.end();
  });

  it('tells a refused client from another refusal at the token endpoint', async () => {
    handlers.set('/token', json(400, { error: 'invalid_grant' }));
    expect(await outcome('/token')).toEqual({ failure: 'refused', detail: 'token endpoint: invalid_grant' });
    handlers.set('/token', json(400, { error: 'invalid_client' }));
    expect(await outcome('/token')).toMatchObject({ failure: 'client-refused' });
    // The status decides first: a 401 is a refused client whatever its body says, or lacks.
    handlers.set('/token', (_request, response) => response.writeHead(401).end());
    expect(await outcome('/token')).toEqual({
      failure: 'client-refused',
      detail: 'token endpoint: status 401',
    });
    handlers.set('/token', json(200, { access_token: 'a' }));
    expect(await outcome('/token')).toEqual({ body: '{"access_token":"a"}' });
  });

  it('takes any other unsuccessful answer for a refusal (UserInfo) or an upstream out of order', async () => {
    handlers.set('/userinfo', (_request, response) => response.writeHead(401).end());
    expect(await outcome('/userinfo')).toEqual({ failure: 'refused', detail: 'userinfo answered 401' });
    handlers.set('/jwks', (_request, response) => response.writeHead(503).end());
    expect(await outcome('/jwks')).toEqual({ failure: 'unreachable', detail: `${origin} answered 503` });
    expect(await outcome('/nothing-here')).toEqual({
      failure: 'unreachable',
      detail: 'discovery document answered 404',
    });
  });
});
