import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT } from '../../shared/domain/rate-limit.js';
import { createTestOrganization, useService } from '../support/service.js';

const service = useService({ rateLimit: DEFAULT_RATE_LIMIT });

/** A token of a new organization with the default limit (10 + 10). */
const newOrganizationToken = async () => {
  const organization = await createTestOrganization({ rateLimit: DEFAULT_RATE_LIMIT });
  return (await service.callerWith([], { organization: organization.id })).token;
};

/** Waits until `offset` ms into the next calendar second, so a burst falls inside one second. */
const startOfNextSecond = async (offset = 30) => {
  const wait = 1000 - (Date.now() % 1000) + offset;
  await new Promise((resolve) => setTimeout(resolve, wait));
  return Math.floor(Date.now() / 1000);
};

/** Returns at once when `second` has begun, otherwise waits for it. */
const untilSecond = async (second: number) => {
  const wait = second * 1000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 10));
};

/** Sends `count` requests at once; the gateway counts each in the second it arrived. */
const fire = async (token: string, count: number) => {
  const dispatchedAt = Date.now();
  const responses = await Promise.all(
    Array.from({ length: count }, () => service.call('GET', '/idp/me/ui-permissions', { token })),
  );
  return {
    ok: responses.filter((response) => response.status === 200).length,
    limited: responses.filter((response) => response.status === 429),
    dispatchedSecond: Math.floor(dispatchedAt / 1000),
    answeredSecond: Math.floor(Date.now() / 1000),
    tookMs: Date.now() - dispatchedAt,
  };
};

/**
 * Two bursts in two consecutive seconds, for two organizations. The arithmetic can only be checked
 * when every request of a burst arrived within its second; on a busy machine a burst may spill
 * into the next one, and the scenario is then run again with new organizations.
 */
const twoSeconds = async () => {
  const [tokenA, tokenB] = await Promise.all([newOrganizationToken(), newOrganizationToken()]);
  // Warm up (token verification keys, OpenAPI validator), then let a whole second pass idle.
  await Promise.all([fire(tokenA, 1), fire(tokenB, 1)]);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  const second = await startOfNextSecond();
  const [a, b] = await Promise.all([fire(tokenA, 30), fire(tokenB, 20)]);
  await untilSecond(second + 1);
  const [next, otherNext] = await Promise.all([fire(tokenA, 20), fire(tokenB, 10)]);
  const fitted =
    [a, b].every((burst) => burst.dispatchedSecond === second && burst.answeredSecond === second) &&
    [next, otherNext].every(
      (burst) => burst.dispatchedSecond === second + 1 && burst.answeredSecond === second + 1,
    );
  return { fitted, a, b, next, otherNext };
};

describe('per-organization rate limit over HTTP', () => {
  it('admits 20 of 30 concurrent requests after an idle second, at most 10 the next second; another organization is unaffected', async () => {
    let run = await twoSeconds();
    for (let attempt = 2; !run.fitted && attempt <= 4; attempt++) run = await twoSeconds();
    const { fitted, a, b, next, otherNext } = run;
    expect(fitted, 'every burst must arrive within its own second (the machine was too busy 4 times)').toBe(
      true,
    );
    console.log(
      `second 1: org A ${a.ok} admitted / ${a.limited.length} refused in ${a.tookMs} ms; org B ${b.ok} admitted`,
    );
    expect(a.ok).toBe(20);
    expect(a.limited).toHaveLength(10);
    expect(b.ok).toBe(20);

    const limitedBody = a.limited[0];
    expect(limitedBody?.body).toMatchObject({ status: 429, error: 'Too Many Requests' });
    expect(limitedBody?.headers.get('x-ratelimit-limit')).toBeNull();
    expect(limitedBody?.headers.get('retry-after')).toBeNull();

    console.log(`second 2: org A ${next.ok} admitted; org B ${otherNext.ok} admitted`);
    expect(next.ok).toBeLessThanOrEqual(10);
    expect(next.ok).toBeGreaterThan(0);
    expect(otherNext.ok).toBe(10);
  });
});
