import { describe, expect, it } from 'vitest';
import { IdpClient } from '../../shared/client/index.js';
import { type ClientCaller, useService } from '../support/service.js';
import { seedUsers } from '../support/user-seeding.js';

/** The typed client against the local server: pacing, retried writes, paging (issue 16's proof). */

const service = useService();

/** A client of `caller`'s organization whose fetch can be watched and made to lose answers. */
const clientOf = (
  caller: ClientCaller,
  options: { pacing?: { rate: number; burst: number }; loseFirstAnswerTo?: string } = {},
) => {
  const statuses: number[] = [];
  let lose = options.loseFirstAnswerTo;
  const client = new IdpClient({
    baseUrl: service.baseUrl,
    credentials: { clientId: caller.principalId, clientSecret: caller.clientSecret },
    ...(options.pacing ? { pacing: options.pacing } : { pacing: false }),
    retry: { firstDelayMillis: 50 },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (!String(input).endsWith('/oauth2/token')) statuses.push(response.status);
      if (lose && `${init?.method} ${new URL(String(input)).pathname}` === lose) {
        lose = undefined;
        // The service applied the request; its answer never arrives.
        throw new TypeError('fetch failed: connection reset');
      }
      return response;
    },
  });
  return { client, statuses };
};

describe('IdpClient against the service', () => {
  it('paces 200 concurrent calls below the organization limit: none fails', async () => {
    const caller = await service.freshOrganization({ rateLimit: { rate: 50, burst: 50 } });
    // Below the contract, as the seed advises: the limit counts calendar seconds at the service,
    // where a loaded machine may deliver paced requests in bunches (a 429 then is retried).
    // How the client spaces its calls is shown on a faked clock (idp-client.unit.test.ts).
    const { client } = clientOf(caller, { pacing: { rate: 40, burst: 40 } });
    const answers = await Promise.all(Array.from({ length: 200 }, () => client.listPermissions()));
    expect(answers.every((permissions) => permissions.length > 0)).toBe(true);
  });

  it('retries a write whose answer was lost under the same Idempotency-Key: applied once', async () => {
    const caller = await service.freshOrganization();
    const { client, statuses } = clientOf(caller, { loseFirstAnswerTo: 'POST /idp/roles' });
    const created = await client.createRole({ body: { name: 'Written once', permissions: ['USER.LIST'] } });
    expect(created.location).toMatch(/\/idp\/roles\/[\w-]+$/);
    expect(statuses).toEqual([204, 204]);
    const roles = await client.listRoles();
    expect(roles.filter((role) => role.name === 'Written once')).toHaveLength(1);
  });

  it('pages over 1,050 users, each exactly once, listed by page number and searched by cursor', async () => {
    const caller = await service.freshOrganization();
    const seeded = await seedUsers(
      caller.orgId,
      1_050,
      () => true,
      () => 'ACTIVE',
    );
    const { client } = clientOf(caller);
    const seen: string[] = [];
    for await (const page of client.pages('listUsers', { query: { pageSize: 100 } })) {
      seen.push(...page.map((user) => user.id));
    }
    // 11 pages of 100, the last one short.
    expect(seen).toHaveLength(1_050);
    expect(new Set(seen)).toEqual(new Set(seeded));
    // A search pages by cursor through the same `pages`.
    const found: string[] = [];
    for await (const page of client.pages('searchUsers', { query: { emailPrefix: 'USER', limit: 1000 } })) {
      found.push(...page.map((user) => user.id));
    }
    // Two pages of 1000 by cursor.
    expect(found).toHaveLength(1_050);
    expect(new Set(found)).toEqual(new Set(seeded));
  });
});
