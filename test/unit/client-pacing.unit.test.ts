import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_POLICY, retryAfterSeconds, retryDelay } from '../../shared/client/retry-policy.js';
import { TokenBucket } from '../../shared/client/token-bucket.js';

describe('retry delays (seed section 8)', () => {
  const policy = DEFAULT_RETRY_POLICY;

  it('starts at 1 s, doubles, adds 0 to 250 ms, and stops growing at 30 s', () => {
    const none = () => 0;
    const most = () => 0.999_999;
    expect([1, 2, 3, 4, 5].map((retry) => retryDelay(retry, policy, none))).toEqual([
      1000, 2000, 4000, 8000, 16000,
    ]);
    expect([1, 2, 3].map((retry) => retryDelay(retry, policy, most))).toEqual([1250, 2250, 4250]);
    expect(retryDelay(6, policy, most)).toBe(30_000);
    expect(retryDelay(12, policy, none)).toBe(30_000);
  });

  it('with full jitter waits anywhere from nothing to the delay', () => {
    const full = { ...policy, jitter: 'full' as const };
    expect(retryDelay(3, full, () => 0)).toBe(0);
    expect(retryDelay(3, full, () => 0.5)).toBe(2000);
  });

  it('waits at least what Retry-After says, within the cap', () => {
    expect(retryDelay(1, policy, () => 0, 5)).toBe(5000);
    expect(retryDelay(1, policy, () => 0, 3600)).toBe(30_000);
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(null)).toBeUndefined();
  });
});

describe('token bucket pacing', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** How many of `count` callers got through by each of the given times (ms). */
  const admittedBy = async (bucket: TokenBucket, count: number, times: number[]) => {
    let admitted = 0;
    for (let caller = 0; caller < count; caller++) void bucket.take().then(() => admitted++);
    const counts: number[] = [];
    let elapsed = 0;
    for (const time of times) {
      await vi.advanceTimersByTimeAsync(time - elapsed);
      elapsed = time;
      counts.push(admitted);
    }
    return counts;
  };

  it('lets a burst through at once, then the rate: 20 in the first second, 10 a second after', async () => {
    const bucket = new TokenBucket({ rate: 10, burst: 10 }, () => Date.now());
    expect(await admittedBy(bucket, 45, [0, 999, 1999, 2999])).toEqual([10, 19, 29, 39]);
  });

  it('refills while idle, never beyond the burst', async () => {
    const bucket = new TokenBucket({ rate: 10, burst: 10 }, () => Date.now());
    await admittedBy(bucket, 10, [0]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await admittedBy(bucket, 15, [0])).toEqual([10]);
  });

  it('takes its numbers from the options', async () => {
    const bucket = new TokenBucket({ rate: 2, burst: 1 }, () => Date.now());
    expect(await admittedBy(bucket, 5, [0, 500, 1000, 1500])).toEqual([1, 2, 3, 4]);
  });
});
