import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { counterCount, DEFAULT_RATE_LIMIT, type RateLimitSettings } from '../../shared/domain/rate-limit.js';
import { keys } from '../../shared/store/keys.js';
import { admitRequest } from '../../shared/store/rate-limit-store.js';
import { getItem, useDatabase } from '../support/service.js';

useDatabase();

/** Fires `count` admissions for one organization and second at once; answers how many got in. */
const burst = async (orgId: string, second: number, count: number, settings = DEFAULT_RATE_LIMIT) => {
  const results = await Promise.all(
    Array.from({ length: count }, () => admitRequest(orgId, second, settings)),
  );
  return results.filter(Boolean).length;
};

describe('rate-limit counters on DynamoDB (concurrent conditional writes)', () => {
  const second = 1_800_000_000;

  it('admits exactly 20 of 30 after an idle second, then 10, then 10 again', async () => {
    const org = randomUUID();
    expect(await burst(org, second, 30)).toBe(20);
    expect(await burst(org, second + 1, 30)).toBe(10);
    expect(await burst(org, second + 2, 30)).toBe(10);
  });

  it('gives 11 after a second with 9 admitted, and 20 again after an idle second', async () => {
    const org = randomUUID();
    expect(await burst(org, second, 9)).toBe(9);
    expect(await burst(org, second + 1, 30)).toBe(11);
    expect(await burst(org, second + 3, 30)).toBe(20);
  });

  it('keeps organizations apart', async () => {
    const [first, other] = [randomUUID(), randomUUID()];
    const [admittedFirst, admittedOther] = await Promise.all([
      burst(first, second, 30),
      burst(other, second, 25),
    ]);
    expect(admittedFirst).toBe(20);
    expect(admittedOther).toBe(20);
  });

  it("applies an organization's own rate and burst", async () => {
    const org = randomUUID();
    const contract: RateLimitSettings = { rate: 50, burst: 25 };
    expect(await burst(org, second, 100, contract)).toBe(75);
    expect(await burst(org, second + 1, 100, contract)).toBe(50);
  });

  it('spreads a large contract over several counters and still admits exactly the allowance', async () => {
    const org = randomUUID();
    const contract: RateLimitSettings = { rate: 300, burst: 300 };
    expect(counterCount(contract)).toBe(2);
    expect(await burst(org, second, 650, contract)).toBe(600);
    const counters = await Promise.all(
      [0, 1].map((counter) => getItem(keys.rateCounter(org, second, counter))),
    );
    expect(counters.map((counter) => counter?.admitted)).toEqual([300, 300]);
    // 600 admitted the second before: the steady rate only.
    expect(await burst(org, second + 1, 350, contract)).toBe(300);
    expect(await burst(org, second + 3, 20, contract)).toBe(20);
  });
});
