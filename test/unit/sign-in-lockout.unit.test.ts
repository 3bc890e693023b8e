import { describe, expect, it } from 'vitest';
import { lockoutMillis } from '../../shared/domain/sign-in-lockout.js';

describe('sign-in lockout', () => {
  it('locks after the fifth failure for 1 minute, doubling up to 15 minutes', () => {
    const minutes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50].map((failures) => lockoutMillis(failures) / 60_000);
    expect(minutes).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 15, 15, 15]);
  });
});
