import { describe, expect, it } from 'vitest';
import { IssuedTokenCounts, minuteOf } from '../../shared/auth/issued-token-counts.js';

const MINUTE = 60_000;
const START = 1_800_000_000_000 - (1_800_000_000_000 % MINUTE);
const A = { id: 'a', organizationId: 'org-1' };
const B = { id: 'b', organizationId: 'org-2' };

describe('issued token counts', () => {
  it('keeps a minute while it lasts and hands each ended client-minute out once', () => {
    const counts = new IssuedTokenCounts();
    counts.count(A, START);
    counts.count(A, START + MINUTE - 1);
    counts.count(B, START + 30_000);
    counts.count(A, START + MINUTE);
    expect(counts.takeEnded(START + MINUTE - 1)).toEqual([]);
    expect(counts.takeEnded(START + MINUTE)).toEqual([
      { ...A, minute: START, count: 2 },
      { ...B, minute: START, count: 1 },
    ]);
    expect(counts.takeEnded(START + MINUTE + 1)).toEqual([]);
    // Minutes without tokens record nothing; the last minute is handed out however late.
    expect(counts.takeEnded(START + 10 * MINUTE)).toEqual([{ ...A, minute: START + MINUTE, count: 1 }]);
  });

  it('starts a minute at its first millisecond', () => {
    expect(minuteOf(START)).toBe(START);
    expect(minuteOf(START + MINUTE - 1)).toBe(START);
    expect(minuteOf(START + MINUTE)).toBe(START + MINUTE);
  });
});
