import { afterEach, describe, expect, it } from 'vitest';
import { useService } from '../support/service.js';

/**
 * A principal the instance knows to be refused (a deleted client, a deactivated person) uses none
 * of its organization's allowance: a leaked token, refused 401, cannot exhaust the organization's
 * second for everyone else (shared/http/middleware/admission.ts). The second is pinned through the
 * local gateway's clock, as API Gateway stamps it.
 */
let pinnedSecond: number | undefined;
const service = useService({
  clock: () => (pinnedSecond === undefined ? Date.now() : pinnedSecond * 1000 + 500),
});
afterEach(() => {
  pinnedSecond = undefined;
});

const SECOND = 1_950_000_000;

const get = (token: string) =>
  fetch(`${service.baseUrl}/idp/me/ui-permissions`, { headers: { authorization: `Bearer ${token}` } });
const tenOf = (token: string) => Promise.all(Array.from({ length: 10 }, () => get(token)));

describe('the rate limit and refused principals', () => {
  it("does not count a deleted client's requests against its organization", async () => {
    const admin = await service.freshOrganization({ rateLimit: { rate: 10, burst: 0 } });
    const [live, leaked] = [
      await service.callerWith([], { organization: admin.orgId }),
      await service.callerWith([], { organization: admin.orgId }),
    ];

    // Positive control: ten requests of a live client use up the second; the administrator waits.
    pinnedSecond = SECOND;
    expect((await tenOf(live.token)).map((response) => response.status)).toEqual(Array(10).fill(200));
    expect((await get(admin.token)).status).toBe(429);

    pinnedSecond = SECOND + 3;
    const deleted = await service.call('DELETE', `/idp/clients/${leaked.principalId}`, {
      token: admin.token,
    });
    expect(deleted.status).toBe(204);
    // The instance learns that the principal is gone (one request, which may count).
    pinnedSecond = SECOND + 5;
    expect((await get(leaked.token)).status).toBe(401);

    // The same ten requests, now refused, leave the second to the administrator.
    pinnedSecond = SECOND + 10;
    expect((await tenOf(leaked.token)).map((response) => response.status)).toEqual(Array(10).fill(401));
    expect((await get(admin.token)).status).toBe(200);
  });

  it('answers a refused principal 401 (stop), not 429 (repeat), in a second the instance knows is full', async () => {
    const admin = await service.freshOrganization({ rateLimit: { rate: 1, burst: 0 } });
    const live = await service.callerWith([], { organization: admin.orgId });
    const leaked = await service.callerWith([], { organization: admin.orgId });
    pinnedSecond = SECOND + 100;
    expect(
      (await service.call('DELETE', `/idp/clients/${leaked.principalId}`, { token: admin.token })).status,
    ).toBe(204);
    // The instance learns that the principal is refused.
    pinnedSecond = SECOND + 102;
    expect((await get(leaked.token)).status).toBe(401);
    pinnedSecond = SECOND + 104;
    // Positive control: the live client uses the second's one admission; the next finds it full.
    expect((await get(live.token)).status).toBe(200);
    expect((await get(live.token)).status).toBe(429);
    const refused = await get(leaked.token);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([401, null]);
  });
});
