import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { newRecordId, recordIdAt } from '../../shared/audit/record-id.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('audit record ids', () => {
  it('are ULIDs of the time given, between that millisecond’s bounds', () => {
    const time = Date.UTC(2026, 10, 28, 12, 0, 0, 123);
    const id = newRecordId(time);
    expect(isValid(id)).toBe(true);
    expect(decodeTime(id)).toBe(time);
    expect(id > recordIdAt(time, 'first') && id < recordIdAt(time, 'last')).toBe(true);
    expect(newRecordId(time + 1) > recordIdAt(time, 'last')).toBe(true);
  });

  it('draw fresh random characters for every id, across refills of the pool, each of the 32 about equally', () => {
    // 3,000 ids of one millisecond read 48,000 bytes: the 4,096-byte pool is refilled 11 times.
    const ids = Array.from({ length: 3_000 }, () => newRecordId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    const seen = new Map<string, number>();
    for (const id of ids)
      for (const character of id.slice(10)) seen.set(character, (seen.get(character) ?? 0) + 1);
    expect([...seen.keys()].sort()).toEqual([...CROCKFORD].sort());
    // 1,500 expected each; a uniform draw strays past ±300 with a chance far below 1e-12.
    for (const count of seen.values()) expect(Math.abs(count - 1_500)).toBeLessThan(300);
  });
});
