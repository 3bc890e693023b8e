import type { KnownClient } from './oauth-error.js';

/**
 * How many client-credentials tokens each client was issued, per minute, in this instance: the
 * token endpoint counts in memory, so a token costs no write, and records one `token.issued` per
 * client and minute once the minute has ended (./issued-token-records.ts). Pure.
 */

const MINUTE_MILLIS = 60_000;

export interface ClientMinute extends KnownClient {
  /** Epoch ms of the minute's first millisecond. */
  minute: number;
  count: number;
}

export const minuteOf = (time: number): number => Math.floor(time / MINUTE_MILLIS) * MINUTE_MILLIS;

export class IssuedTokenCounts {
  readonly #counts = new Map<string, ClientMinute>();

  /** Counts one token issued to `client` at `now`. */
  count(client: KnownClient, now: number): void {
    const minute = minuteOf(now);
    const key = `${minute} ${client.id}`;
    const known = this.#counts.get(key);
    if (known) known.count += 1;
    else this.#counts.set(key, { id: client.id, organizationId: client.organizationId, minute, count: 1 });
  }

  /** Takes out the counts of every minute that ended before `now`'s; the current minute's stay. */
  takeEnded(now: number): ClientMinute[] {
    const current = minuteOf(now);
    const ended: ClientMinute[] = [];
    for (const [key, entry] of this.#counts) {
      if (entry.minute >= current) continue;
      ended.push(entry);
      this.#counts.delete(key);
    }
    return ended;
  }
}
