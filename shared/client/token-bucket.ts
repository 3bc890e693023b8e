/**
 * Client-side pacing: one token bucket per client, shared by all its concurrent calls, so that a
 * busy caller waits its turn instead of collecting 429s. It refills `rate` tokens a second up to
 * `burst` (default 10 + 10, the organization's default contract: 20 in an idle second, 10 a
 * second after). Callers queue in order. The clock and timer are passed in for tests.
 */
export interface Pacing {
  rate: number;
  burst: number;
}

export const DEFAULT_PACING: Pacing = { rate: 10, burst: 10 };

export class TokenBucket {
  #tokens: number;
  #updated: number;
  #queue: (() => void)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly pacing: Pacing,
    private readonly now: () => number = Date.now,
  ) {
    this.#tokens = pacing.burst;
    this.#updated = now();
  }

  /** Resolves when the caller may send one request. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.#queue.push(resolve);
      this.#drain();
    });
  }

  #refill() {
    const now = this.now();
    this.#tokens = Math.min(
      this.pacing.burst,
      this.#tokens + ((now - this.#updated) / 1000) * this.pacing.rate,
    );
    this.#updated = now;
  }

  #drain() {
    this.#refill();
    while (this.#queue.length > 0 && this.#tokens >= 1) {
      this.#tokens -= 1;
      this.#queue.shift()?.();
    }
    if (this.#queue.length > 0 && !this.#timer) {
      const wait = Math.ceil(((1 - this.#tokens) / this.pacing.rate) * 1000);
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#drain();
      }, wait);
    }
  }
}
