/**
 * Per-organization rate limit arithmetic (DECISIONS.md): in calendar second s an organization may
 * have `R + min(B, max(0, R - admitted(s-1)))` requests admitted. Pure; the store applies it.
 */
export interface RateLimitSettings {
  /** Steady requests per second. */
  rate: number;
  /** Extra requests a second may take after a quiet one. */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { rate: 10, burst: 10 };

export const allowanceForSecond = (settings: RateLimitSettings, admittedPreviousSecond: number): number =>
  settings.rate + Math.min(settings.burst, Math.max(0, settings.rate - admittedPreviousSecond));

export const epochSecondOf = (epochMillis: number): number => Math.floor(epochMillis / 1000);

/**
 * Writes per second one counter item is asked to take: half of what a DynamoDB partition accepts
 * (1,000 writes/s), so a second's counters never throttle.
 */
export const WRITES_PER_COUNTER = 500;
/** The most counters a second is spread over (one BatchGetItem reads them all): 50,000 requests/s. */
export const MAX_COUNTERS = 100;

/** How many counter items an organization's second is spread over: enough for its largest second. */
export const counterCount = (settings: RateLimitSettings): number =>
  Math.min(MAX_COUNTERS, Math.max(1, Math.ceil((settings.rate + settings.burst) / WRITES_PER_COUNTER)));

/**
 * Counter `index`'s share of `total` admissions when a second is spread over `counters` items:
 * the shares differ by at most one and add up to `total` exactly.
 */
export const shareOf = (total: number, counters: number, index: number): number =>
  Math.floor(total / counters) + (index < total % counters ? 1 : 0);
