import { randomFillSync } from 'node:crypto';
import { encodeTime, ulid } from 'ulid';

/**
 * Random bytes for record ids, drawn from the operating system a pool at a time. `ulid` asks its
 * generator for one character (5 random bits) at a time, and its default generator makes a Web
 * Crypto call for each: 16 calls and about 90 µs of CPU per id here, on every audited write.
 * A byte of the pool makes one character: byte / 256 scaled to 32 keeps each of the 32 uniform.
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let next = POOL_BYTES;

const randomFraction = (): number => {
  if (next === POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const byte = pool[next] as number;
  // A byte is read once: the next draw must not repeat it.
  next += 1;
  return byte / 256;
};

/** A ULID of `time`: sortable by time, with 80 random bits. */
export const newRecordId = (time: number): string => ulid(time, randomFraction);

/** An id bound for a time: every record id of that millisecond sorts after the first and before the last. */
export const recordIdAt = (time: number, end: 'first' | 'last'): string =>
  encodeTime(Math.max(0, Math.min(time, 2 ** 48 - 1)), 10) + (end === 'first' ? '0' : 'Z').repeat(16);
