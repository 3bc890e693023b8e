import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allowanceForSecond,
  counterCount,
  DEFAULT_RATE_LIMIT,
  epochSecondOf,
  shareOf,
  WRITES_PER_COUNTER,
} from '../../shared/domain/rate-limit.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

describe('rate-limit arithmetic', () => {
  it.each([
    [0, 20],
    [5, 15],
    [9, 11],
    [10, 10],
    [20, 10],
  ])('after %i admitted requests the next second allows %i', (previous, expected) => {
    expect(allowanceForSecond(DEFAULT_RATE_LIMIT, previous)).toBe(expected);
  });

  it('caps the burst at B for contracts with a larger rate', () => {
    expect(allowanceForSecond({ rate: 100, burst: 25 }, 0)).toBe(125);
    expect(allowanceForSecond({ rate: 100, burst: 25 }, 90)).toBe(110);
    expect(allowanceForSecond({ rate: 5, burst: 0 }, 0)).toBe(5);
  });

  it('puts a request in the calendar second it arrived', () => {
    expect(epochSecondOf(1_700_000_000_999)).toBe(1_700_000_000);
    expect(epochSecondOf(1_700_000_001_000)).toBe(1_700_000_001);
  });
});

describe('rate-limit counters spread over items', () => {
  it('uses one counter up to 500 requests/s and enough for 10,000 requests/s', () => {
    expect(counterCount(DEFAULT_RATE_LIMIT)).toBe(1);
    expect(counterCount({ rate: 250, burst: 250 })).toBe(1);
    expect(counterCount({ rate: 250, burst: 251 })).toBe(2);
    const contract = { rate: 10_000, burst: 10_000 };
    // No counter is asked for more than 500 writes in the largest second the contract allows.
    const counters = counterCount(contract);
    expect(shareOf(allowanceForSecond(contract, 0), counters, 0)).toBeLessThanOrEqual(WRITES_PER_COUNTER);
  });

  it('splits an allowance into shares that add up to it exactly and grow with it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 1, max: 100 }),
        (total, counters) => {
          const shares = Array.from({ length: counters }, (_, index) => shareOf(total, counters, index));
          expect(shares.reduce((sum, share) => sum + share, 0)).toBe(total);
          expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
          // A share of the steady rate never exceeds the same counter's share of a larger allowance.
          for (const [index, share] of shares.entries()) {
            expect(shareOf(total + 1, counters, index)).toBeGreaterThanOrEqual(share);
          }
        },
      ),
      { seed: SEED },
    );
    console.log(`rate-limit share property: seed ${SEED}`);
  });
});
