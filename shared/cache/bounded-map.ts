/** A map an instance keeps for as long as it lives: beyond `maxEntries`, the oldest entries go first. */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
