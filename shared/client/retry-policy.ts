/**
 * When to try a call again and how long to wait first: the seed's section 8 by default, every
 * number an option (DECISIONS.md, "Client SDK"). Pure: the random source is passed in.
 */
export interface RetryPolicy {
  /** Statuses worth another attempt; network failures and time-outs always are. */
  retryableStatuses: readonly number[];
  firstDelayMillis: number;
  multiplier: number;
  /** `added`: 0 to `jitterMillis` on top of the delay; `full`: anywhere from 0 to the delay (many concurrent callers). */
  jitter: 'added' | 'full';
  jitterMillis: number;
  maxRetries: number;
  maxDelayMillis: number;
  /** One attempt's time limit. */
  timeoutMillis: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retryableStatuses: [429, 500, 502, 503, 504],
  firstDelayMillis: 1000,
  multiplier: 2,
  jitter: 'added',
  jitterMillis: 250,
  maxRetries: 5,
  maxDelayMillis: 30_000,
  timeoutMillis: 20_000,
};

/**
 * The wait before retry number `retry` (1 for the first retry): the first delay times the
 * multiplier per earlier retry, with jitter, never beyond the cap. A `Retry-After` the service
 * sent (seconds) is waited at least, within the cap too.
 */
export const retryDelay = (
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
  retryAfterSeconds?: number,
): number => {
  const base = Math.min(policy.maxDelayMillis, policy.firstDelayMillis * policy.multiplier ** (retry - 1));
  const jittered = policy.jitter === 'full' ? random() * base : base + random() * policy.jitterMillis;
  const floor = retryAfterSeconds !== undefined && retryAfterSeconds >= 0 ? retryAfterSeconds * 1000 : 0;
  return Math.round(Math.min(policy.maxDelayMillis, Math.max(jittered, floor)));
};

/** `Retry-After` as seconds (a number of seconds or an HTTP date), if the answer has one. */
export const retryAfterSeconds = (header: string | null, now = Date.now()): number | undefined => {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
};
