/**
 * Values an instance remembers for a bounded time, keyed. Concurrent misses share one load, a
 * failed load is forgotten at once, and the oldest entries go first beyond `maxEntries`. A
 * `maxAgeMillis` of 0 turns the cache off (every call loads).
 */
export class ExpiringCache<K, V> {
  readonly #entries = new Map<K, { loadedAt: number; value: Promise<V> }>();
  readonly #refreshing = new Set<K>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: K, maxAgeMillis: number, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const known = this.#entries.get(key);
    if (known && maxAgeMillis > 0 && now - known.loadedAt < maxAgeMillis) return known.value;
    const value = load();
    this.#entries.delete(key);
    this.#entries.set(key, { loadedAt: now, value });
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return value;
  }

  /** Whether `get` would answer from what it remembers, without loading. */
  holds(key: K, maxAgeMillis: number, now = Date.now()): boolean {
    const known = this.#entries.get(key);
    return known !== undefined && maxAgeMillis > 0 && now - known.loadedAt < maxAgeMillis;
  }

  /**
   * Like `get`, but an expired value that loaded is still answered while a fresh one loads in the
   * background: only the first call for a key waits for a load.
   */
  getRefreshing(key: K, maxAgeMillis: number, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const known = this.#entries.get(key);
    if (!known || now - known.loadedAt < maxAgeMillis || this.#refreshing.has(key)) {
      return known?.value ?? this.get(key, maxAgeMillis, load, now);
    }
    this.#refreshing.add(key);
    load().then(
      (value) => {
        this.#refreshing.delete(key);
        this.#entries.set(key, { loadedAt: Date.now(), value: Promise.resolve(value) });
      },
      () => this.#refreshing.delete(key),
    );
    return known.value;
  }

  /**
   * Loads the value again on the next `get`; with `only`, unless the value remembered is another
   * than `only` already (someone else loaded it again meanwhile).
   */
  forget(key: K, only?: Promise<V>): void {
    if (only === undefined || this.#entries.get(key)?.value === only) this.#entries.delete(key);
  }
}
