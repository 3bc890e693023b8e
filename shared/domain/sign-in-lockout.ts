/**
 * Brute-force protection of sign-in (DECISIONS.md): after 5 consecutive failures on an account,
 * each further attempt waits 1 minute, doubling up to 15 minutes; a success clears the count.
 * Pure: the store keeps the count, this decides the wait.
 */
export const FAILURES_BEFORE_LOCKOUT = 5;
const FIRST_WAIT_MILLIS = 60_000;
const LONGEST_WAIT_MILLIS = 15 * 60_000;

/** How long after its latest failure an account with `failures` consecutive failures is locked. */
export const lockoutMillis = (failures: number): number =>
  failures < FAILURES_BEFORE_LOCKOUT
    ? 0
    : Math.min(LONGEST_WAIT_MILLIS, FIRST_WAIT_MILLIS * 2 ** (failures - FAILURES_BEFORE_LOCKOUT));
