import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../../shared/domain/rate-limit.js';
import { startServer } from '../support/child-server.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * The limit holds across function instances: two instances of the service, each in a process of
 * its own, share this file's database, signing keys and issuer, and requests of one organization
 * arrive through both. The second a request counts in is the one its gateway stamps on it
 * (`timeEpoch`), as API Gateway does; the test pins it in both instances, so a burst is in its
 * second however long this machine takes to deliver it.
 */
useDatabase();
const newDataDirectory = useTempDirs('instances');

interface Instance {
  baseUrl: string;
  tokenUrl: string;
  stop(): void;
  ask(message: object): Promise<unknown>;
}
let instances: Instance[] = [];

beforeAll(async () => {
  const env = { INSTANCE_DATA_DIR: newDataDirectory() };
  const first = await startServer<Instance>('test/support/local-instance.ts', env);
  const second = await startServer<Instance>('test/support/local-instance.ts', {
    ...env,
    INSTANCE_ISSUER: first.baseUrl,
  });
  instances = [first, second];
});
afterAll(() => {
  for (const instance of instances) instance.stop();
});

/** A token of a new organization with the default limit (10 + 10). */
const newOrganizationToken = async () => {
  const organization = await createTestOrganization({ rateLimit: DEFAULT_RATE_LIMIT });
  const { clientId, clientSecret } = await createTestClient(organization.id, []);
  const response = await fetch(instances[0]?.tokenUrl ?? '', {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
};

/** Both instances stamp `epochSecond` (and 500 ms) on every request from now on. */
const pinSecond = (epochSecond: number) =>
  Promise.all(instances.map((instance) => instance.ask({ pinClock: epochSecond * 1000 + 500 })));

/** Sends `count` requests at once, alternating between the instances. */
const fire = async (token: string, count: number) => {
  const responses = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      fetch(`${instances[index % instances.length]?.baseUrl}/idp/me/ui-permissions`, {
        headers: { authorization: `Bearer ${token}` },
      }).then(async (response) => ({ status: response.status, body: await response.json() })),
    ),
  );
  return {
    ok: responses.filter((response) => response.status === 200).length,
    limited: responses.filter((response) => response.status === 429),
  };
};

/** A second of this file's own (the database is the file's): nothing else counts in it. */
const SECOND = 1_900_000_000;

describe('per-organization rate limit across two function instances', () => {
  it('admits exactly the allowance of 50 concurrent requests: 20 after an idle second, 10 after a full one; another organization is unaffected', async () => {
    const [tokenA, tokenB] = await Promise.all([newOrganizationToken(), newOrganizationToken()]);
    // Warm both instances (verification keys, principal status, limits) well before.
    await pinSecond(SECOND - 10);
    await Promise.all([fire(tokenA, 2), fire(tokenB, 2)]);
    // SECOND - 1 saw no request: SECOND allows rate + burst, and SECOND + 1, after a full one, the rate.
    await pinSecond(SECOND);
    const [a, b] = await Promise.all([fire(tokenA, 50), fire(tokenB, 20)]);
    await pinSecond(SECOND + 1);
    const next = await fire(tokenA, 50);
    console.log(`second 1: ${a.ok} admitted, ${a.limited.length} refused; other organization ${b.ok}`);
    expect(a.ok).toBe(20);
    expect(a.limited).toHaveLength(30);
    expect(b.ok).toBe(20);
    expect(a.limited[0]?.body).toMatchObject({ status: 429, error: 'Too Many Requests' });
    console.log(`second 2: ${next.ok} admitted`);
    expect(next.ok).toBe(10);
  });
});
