import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clientOperationsSource, OUTPUT } from '../../bin/generate-client-operations.js';
import { ROUTES } from '../../shared/api/routes.js';
import {
  IdpApiError,
  IdpClient,
  IdpNetworkError,
  IdpOAuthError,
  nextLink,
  stepUpChallengeOf,
} from '../../shared/client/index.js';

/** The client against a scripted `fetch`: what it sends, and what it does with each answer. */

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const TOKEN = json(200, { access_token: 'token-1', token_type: 'Bearer', expires_in: 3600 });

/** A fetch answering token requests with `token` and API requests from `answers` in order. */
const scriptedFetch = (answers: (Response | Error)[], token: () => Response = () => TOKEN.clone()) => {
  const sent: Sent[] = [];
  const tokenRequests: Sent[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init: RequestInit = {}) => {
    const request: Sent = {
      method: init.method ?? 'GET',
      url: String(url),
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: init.body,
    };
    if (String(url).endsWith('/oauth2/token')) {
      tokenRequests.push(request);
      return token();
    }
    sent.push(request);
    const answer = answers.shift() ?? json(200, {});
    if (answer instanceof Error) throw answer;
    return answer;
  });
  return { fetch: fetch as unknown as typeof globalThis.fetch, sent, tokenRequests };
};

const clientWith = (
  fetch: typeof globalThis.fetch,
  options: Partial<ConstructorParameters<typeof IdpClient>[0]> = {},
) =>
  new IdpClient({
    baseUrl: 'https://idp.example',
    credentials: { clientId: 'client', clientSecret: 'secret' },
    pacing: false,
    random: () => 0,
    fetch,
    ...options,
  });

describe('the operation table', () => {
  it('is what the route table says (bin/generate-client-operations.ts)', () => {
    expect(readFileSync(OUTPUT, 'utf8')).toBe(clientOperationsSource(ROUTES));
  });
});

describe('types from the route table', () => {
  it('refuses a call the API would refuse, before it is sent', () => {
    const client = clientWith(scriptedFetch([]).fetch);
    const typeChecks = () => {
      // @ts-expect-error: getUser needs the id
      void client.getUser();
      // @ts-expect-error: createUser needs a body with an email
      void client.createUser({ body: { name: 'No email', userType: 'STANDARD' } });
      // @ts-expect-error: no such operation
      void client.deleteEverything();
    };
    expect(typeChecks).toBeTypeOf('function');
  });

  it('types the answer: a user has an email', async () => {
    const { fetch } = scriptedFetch([json(200, { id: 'u1', email: 'ada@example.com' })]);
    const user = await clientWith(fetch, { pacing: false }).getUser({ path: { id: 'u1' } });
    const email: string = user.email;
    expect(email).toBe('ada@example.com');
  });
});

describe('IdpClient', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('paces concurrent calls: the burst at once, then the rate, so no second sends more than both', async () => {
    const { fetch, sent } = scriptedFetch(Array.from({ length: 200 }, () => json(200, [])));
    const client = clientWith(fetch, { pacing: { rate: 40, burst: 40 } });
    const calls = Promise.all(Array.from({ length: 200 }, () => client.listPermissions()));
    const sentBy: number[] = [];
    let elapsed = 0;
    for (const time of [0, 999, 1999, 2999, 3999, 4000]) {
      await vi.advanceTimersByTimeAsync(time - elapsed);
      elapsed = time;
      sentBy.push(sent.length);
    }
    expect(sentBy).toEqual([40, 79, 119, 159, 199, 200]);
    expect(await calls).toHaveLength(200);
  });

  it('calls an operation by name with its path, query and body, and a cached client-credentials token', async () => {
    const { fetch, sent, tokenRequests } = scriptedFetch([
      json(200, { id: 'u1', email: 'ada@example.com' }),
      new Response(null, { status: 204, headers: { location: 'https://idp.example/idp/users/u2' } }),
    ]);
    const client = clientWith(fetch);
    expect(await client.getUser({ path: { id: 'u 1' } })).toMatchObject({ id: 'u1' });
    expect(
      await client.createUser({ body: { email: 'b@example.com', name: 'B', userType: 'STANDARD' } }),
    ).toEqual({
      location: 'https://idp.example/idp/users/u2',
    });
    expect(sent.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET https://idp.example/idp/users/u%201',
      'POST https://idp.example/idp/users',
    ]);
    expect(sent[0]?.headers.authorization).toBe('Bearer token-1');
    expect(sent[1]?.body).toBe(JSON.stringify({ email: 'b@example.com', name: 'B', userType: 'STANDARD' }));
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]?.headers.authorization).toBe(`Basic ${btoa('client:secret')}`);
  });

  it('retries 429, 5xx and dropped connections with 1 s, 2 s, 4 s ... (plus jitter)', async () => {
    const { fetch, sent } = scriptedFetch([
      json(503, {}),
      new TypeError('fetch failed'),
      json(429, {}),
      json(200, []),
    ]);
    const client = clientWith(fetch, { random: () => 0.5 });
    const result = client.listRoles();
    await vi.advanceTimersByTimeAsync(1124);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1); // 1 s + 125 ms of jitter
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2125);
    expect(sent).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(4125);
    expect(await result).toEqual([]);
    expect(sent).toHaveLength(4);
  });

  it("keeps each path parameter one segment of its operation's path: refuses dot segments, / and % before sending", async () => {
    const { fetch, sent } = scriptedFetch([
      new Response(null, { status: 204 }),
      new Response(null, { status: 204 }),
    ]);
    const client = clientWith(fetch);
    // Positive control: ordinary values, encoded; a role named as a directory names groups.
    await client.removeUserFromGroup({ path: { id: 'user 1', userGroupId: 'group-1' } });
    await client.grantUserRole({ path: { id: 'user-1', roleName: 'CONTOSO\\Admins' } });
    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'DELETE https://idp.example/idp/users/user%201/userGroups/group-1',
      'PUT https://idp.example/idp/users/user-1/roles/CONTOSO%5CAdmins/grant',
    ]);
    // `..` would send DELETE /idp/userGroups/group-1 (the URL parser resolves it); `%2F` becomes a
    // separator once API Gateway has decoded the path twice.
    for (const id of ['..', '.', '', 'user-1%2FresetMfa', 'a/b', '%']) {
      await expect(
        client.removeUserFromGroup({ path: { id, userGroupId: 'group-1' } }),
        JSON.stringify(id),
      ).rejects.toThrow(TypeError);
    }
    expect(sent).toHaveLength(2);
  });

  it('sends one Idempotency-Key per logical write and keeps it across the retries', async () => {
    const { fetch, sent } = scriptedFetch([
      json(502, {}),
      new Response(null, { status: 204 }),
      new Response(null, { status: 204 }),
    ]);
    const client = clientWith(fetch);
    const first = client.archiveRole({ path: { id: 'r1' } });
    await vi.runAllTimersAsync();
    await first;
    await client.archiveRole({ path: { id: 'r1' } });
    const [attempt, retry, next] = sent.map((request) => request.headers['idempotency-key']);
    expect(attempt).toMatch(/^[0-9a-f-]{36}$/);
    expect(retry).toBe(attempt);
    expect(next).not.toBe(attempt);
  });

  it('retries a 409 the service says is worth repeating (Retry-After: its first attempt still running), with the same key; not another 409', async () => {
    const inProgress = {
      status: 409,
      error: 'Conflict',
      message: 'A request with this Idempotency-Key is still in progress',
      requestId: 'r2',
      timestamp: 1,
    };
    const taken = { ...inProgress, message: 'A role with this name exists', requestId: 'r3' };
    const { fetch, sent } = scriptedFetch([
      // The first attempt's answer was lost; the retry meets it still running, then its replay.
      new TypeError('fetch failed'),
      json(409, inProgress, { 'retry-after': '1' }),
      new Response(null, { status: 204 }),
      // Positive control: a 409 without Retry-After is the caller's, at once.
      json(409, taken),
    ]);
    const client = clientWith(fetch);
    const first = client.archiveRole({ path: { id: 'r1' } });
    await vi.runAllTimersAsync();
    await expect(first).resolves.toBeDefined();
    const keys = sent.map((request) => request.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    await expect(client.archiveRole({ path: { id: 'r2' } })).rejects.toMatchObject({
      status: 409,
      requestId: 'r3',
    });
    expect(sent).toHaveLength(4);
  });

  it('sends no key with reads and with writes that are safe to repeat', async () => {
    const { fetch, sent } = scriptedFetch([json(200, []), new Response(null, { status: 204 })]);
    const client = clientWith(fetch);
    await client.listRoles();
    await client.updateSsoProvider({ path: { clientId: 'c' }, body: { clientSecret: 's' } });
    expect(sent.map((request) => request.headers['idempotency-key'])).toEqual([undefined, undefined]);
  });

  it('gives up after 5 retries with the last answer as a typed error', async () => {
    const { fetch, sent } = scriptedFetch(
      Array.from({ length: 6 }, () =>
        json(503, { status: 503, error: 'Service Unavailable', message: 'Busy', requestId: 'req-1' }),
      ),
    );
    const client = clientWith(fetch);
    const result = client.listRoles().catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    const error = await result;
    expect(error).toBeInstanceOf(IdpApiError);
    expect(error).toMatchObject({ status: 503, message: 'Busy', requestId: 'req-1' });
    expect(sent).toHaveLength(6);
  });

  it('does not retry other errors, and carries the error shape', async () => {
    const body = {
      status: 400,
      error: 'Bad Request',
      message: 'Invalid',
      errorDetails: [{ field: 'name', message: 'Required' }],
      requestId: 'r',
      timestamp: 1,
    };
    const { fetch, sent } = scriptedFetch([json(400, body)]);
    await expect(clientWith(fetch).listRoles()).rejects.toMatchObject({
      status: 400,
      errorDetails: body.errorDetails,
    });
    expect(sent).toHaveLength(1);
  });

  it('fails with a network error once the retries are spent', async () => {
    const { fetch } = scriptedFetch(Array.from({ length: 3 }, () => new TypeError('fetch failed')));
    const result = clientWith(fetch, { retry: { maxRetries: 2 } })
      .listRoles()
      .catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    expect(await result).toBeInstanceOf(IdpNetworkError);
  });

  it('renews the token after a 401 once, and before it expires', async () => {
    let issued = 0;
    const { fetch, sent, tokenRequests } = scriptedFetch([json(401, {}), json(200, []), json(200, [])], () =>
      json(200, { access_token: `token-${++issued}`, expires_in: 600 }),
    );
    const client = clientWith(fetch);
    await client.listRoles();
    expect(sent.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-1',
      'Bearer token-2',
    ]);
    vi.setSystemTime(Date.now() + 541_000);
    await client.listRoles();
    expect(tokenRequests).toHaveLength(3);
  });

  it('renews a refused token once for calls refused side by side, however late their 401s arrive', async () => {
    // Real time: the answers' order is what the test is about (about 0.2 s in all).
    vi.useRealTimers();
    let issued = 0;
    let refusedSoFar = 0;
    let revoked = false;
    const tokenRequests: number[] = [];
    const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));
    const fetch = (async (url: string | URL | Request, init: RequestInit = {}) => {
      if (String(url).endsWith('/oauth2/token')) {
        tokenRequests.push(++issued);
        await sleep(5);
        return json(200, { access_token: `token-${issued}`, expires_in: 3600 });
      }
      // token-1 is revoked: each refusal arrives later than the one before.
      if (revoked && new Headers(init.headers).get('authorization') === 'Bearer token-1') {
        await sleep(20 * ++refusedSoFar);
        return json(401, { message: 'Unauthorized' });
      }
      return json(200, []);
    }) as typeof globalThis.fetch;
    const client = clientWith(fetch);
    // Positive control: eight first calls side by side share one token request.
    await Promise.all(Array.from({ length: 8 }, () => client.listRoles()));
    expect(tokenRequests).toHaveLength(1);
    revoked = true;
    await Promise.all(Array.from({ length: 8 }, () => client.listRoles()));
    expect(tokenRequests).toHaveLength(2);
  });

  it('answers a step-up challenge (RFC 9470) at once, with its max_age: a renewed token holds the same sign-in', async () => {
    const challenge =
      'Bearer error="insufficient_user_authentication", error_description="Changing your email needs a sign-in of the last 5 minutes: sign in again (max_age=300) and retry", max_age=300';
    const { fetch, sent, tokenRequests } = scriptedFetch([
      json(401, { message: 'Changing your email needs a recent sign-in' }, { 'www-authenticate': challenge }),
    ]);
    const error = await clientWith(fetch)
      .listRoles()
      .catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(IdpApiError);
    expect(error).toMatchObject({ status: 401, stepUp: { maxAge: 300 } });
    expect([sent.length, tokenRequests.length]).toEqual([1, 1]);
    // Any other 401 has no step-up, and is tried once more with a new token.
    expect(stepUpChallengeOf('Bearer error="invalid_token", max_age=300')).toBeUndefined();
    expect(stepUpChallengeOf('Bearer error="insufficient_user_authentication"')).toBeUndefined();
    expect(stepUpChallengeOf(null)).toBeUndefined();
    expect(stepUpChallengeOf('Bearer error="insufficient_user_authentication", max_age=60')).toEqual({
      maxAge: 60,
    });
    // RFC 9470's own example quotes it; a parameter may come first.
    expect(stepUpChallengeOf('Bearer error="insufficient_user_authentication", max_age="5"')).toEqual({
      maxAge: 5,
    });
    expect(stepUpChallengeOf('Bearer max_age=5, error="insufficient_user_authentication"')).toEqual({
      maxAge: 5,
    });
  });

  it('answers a refused token request as an OAuth error', async () => {
    const { fetch } = scriptedFetch([], () =>
      json(401, { error: 'invalid_client', error_description: 'Unknown client' }),
    );
    await expect(clientWith(fetch).listRoles()).rejects.toEqual(
      expect.objectContaining({ error: 'invalid_client', status: 401 }),
    );
    await expect(clientWith(fetch).listRoles()).rejects.toBeInstanceOf(IdpOAuthError);
  });

  it('takes a token provider instead of credentials, and asks it on every request', async () => {
    const { fetch, sent, tokenRequests } = scriptedFetch([json(200, []), json(200, [])]);
    // The provider renews its token itself (a person's, refreshed before it expires).
    const tokens = ['person-token', 'renewed-person-token'];
    const client = clientWith(fetch, {
      credentials: undefined,
      tokenProvider: async () => tokens.shift() ?? '',
    });
    await client.listRoles();
    await client.listRoles();
    expect(sent.map((request) => request.headers.authorization)).toEqual([
      'Bearer person-token',
      'Bearer renewed-person-token',
    ]);
    expect(tokenRequests).toHaveLength(0);
  });

  it('iterates over every page of a listing by its Link header', async () => {
    const { fetch, sent } = scriptedFetch([
      json(200, [{ id: 'a' }], { link: '<https://idp.example/idp/roles?page=1&pageSize=1>; rel="next"' }),
      json(200, [{ id: 'b' }], { link: '</idp/roles?page=2&pageSize=1>; rel="next"' }),
      json(200, []),
    ]);
    const pages = [];
    for await (const page of clientWith(fetch).pages('listRoles', { query: { pageSize: 1 } }))
      pages.push(page);
    expect(pages).toEqual([[{ id: 'a' }], [{ id: 'b' }], []]);
    expect(sent.map((request) => request.url)).toEqual([
      'https://idp.example/idp/roles?pageSize=1',
      'https://idp.example/idp/roles?page=1&pageSize=1',
      'https://idp.example/idp/roles?page=2&pageSize=1',
    ]);
    expect(nextLink('<a>; rel="prev", <b>; rel="next"')).toBe('b');
  });

  it('takes a base URL with or without a trailing slash', async () => {
    for (const baseUrl of ['https://idp.example', 'https://idp.example/', 'https://idp.example//']) {
      const { fetch, sent } = scriptedFetch([json(200, [])]);
      await clientWith(fetch, { baseUrl }).call('listRoles');
      expect(sent.map((request) => request.url)).toEqual(['https://idp.example/idp/roles']);
    }
  });

  it.each([
    ['another origin', 'https://attacker.example/collect?page=1', 'leaves https://idp.example'],
    ['a protocol-relative link', '//attacker.example/collect?page=1', 'leaves https://idp.example'],
    ['a downgrade to http', 'http://idp.example/idp/roles?page=1', 'leaves https://idp.example'],
    ['a page read already', '/idp/roles?page=1', 'names a page read already'],
    ['the first page', '/idp/roles', 'names a page read already'],
  ])('follows no next link to %s (the token would go with it)', async (_label, next, refusal) => {
    // Positive control: the same origin's link, followed once.
    const { fetch, sent } = scriptedFetch([
      json(200, [{ id: 'a' }], { link: '</idp/roles?page=1>; rel="next"' }),
      json(200, [{ id: 'b' }], { link: `<${next}>; rel="next"` }),
    ]);
    const pages: unknown[] = [];
    const reading = (async () => {
      for await (const page of clientWith(fetch).pages('listRoles')) pages.push(page);
    })();
    await expect(reading).rejects.toThrow(refusal);
    expect(pages).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
    expect(sent.map((request) => request.url)).toEqual([
      'https://idp.example/idp/roles',
      'https://idp.example/idp/roles?page=1',
    ]);
  });
});
