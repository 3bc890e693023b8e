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
