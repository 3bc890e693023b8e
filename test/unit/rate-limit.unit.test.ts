import { describe, expect, it } from 'vitest';
import { allowanceForSecond, DEFAULT_RATE_LIMIT, epochSecondOf } from '../../shared/domain/rate-limit.js';

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
