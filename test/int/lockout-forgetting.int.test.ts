import { describe, expect, it } from 'vitest';
import { lockoutMillis } from '../../shared/domain/sign-in-lockout.js';
import {
  recordSignInFailure,
  reserveCredentialCheck,
  signInLockedUntil,
} from '../../shared/store/sign-in-state.js';
import { useDatabase } from '../support/database.js';
import { uniqueEmail } from '../support/records.js';

/**
 * docs/sign-in.md: "a success clears the count, which is otherwise forgotten a day after the
 * latest failure". DynamoDB's TTL deletes an expired item only later (AWS documents within a few
 * days), so the store itself treats a failure count past its `expiresAt` as absent.
 */

useDatabase();

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const ORG = 'org-forgetting';

/** A wrong password at `now`, checked under a reservation as the sign-in page does. */
const wrongPassword = async (email: string, now: number) => {
  const check = await reserveCredentialCheck(ORG, email, now);
  if (check.outcome !== 'reserved') throw new Error('not reserved');
  return recordSignInFailure(ORG, email, lockoutMillis, now, check);
};

/** Four failures a second apart from `from`: one short of a lock. */
const fourFailures = async (email: string, from: number) => {
  for (let i = 0; i < 4; i++) await wrongPassword(email, from + i * 1000);
};

describe('failures older than a day', () => {
  it('positive control: five failures within a day lock the email', async () => {
    const email = uniqueEmail('typo');
    const now = Date.now();
    await fourFailures(email, now - DAY + 10_000);
    expect(await wrongPassword(email, now)).toEqual({ failures: 5, locked: true });
    expect(await signInLockedUntil(ORG, email)).toBeGreaterThan(now);
  });

  it('four failures 25 hours ago and one now: the count starts again, nothing is locked', async () => {
    const email = uniqueEmail('typo');
    const now = Date.now();
    await fourFailures(email, now - 25 * HOUR);
    // The reservation starts from nothing, and so does the count.
    expect(await reserveCredentialCheck(ORG, email, now)).toEqual({ outcome: 'reserved', failures: 0 });
    expect(
      await recordSignInFailure(ORG, email, lockoutMillis, now, { outcome: 'reserved', failures: 0 }),
    ).toEqual({ failures: 1, locked: false });
    expect(await signInLockedUntil(ORG, email)).toBeLessThanOrEqual(now);
    // And counts on from there.
    expect(await wrongPassword(email, now + 1000)).toEqual({ failures: 2, locked: false });
  });

  it('a failure counted without a reservation after a day starts the count again too', async () => {
    const email = uniqueEmail('typo');
    const now = Date.now();
    await fourFailures(email, now - 25 * HOUR);
    expect(await recordSignInFailure(ORG, email, lockoutMillis, now)).toEqual({ failures: 1, locked: false });
  });

  it('a check under way when the count expires still holds its email', async () => {
    const email = uniqueEmail('typo');
    const start = Date.now() - 2 * DAY;
    await fourFailures(email, start);
    // The last failure expires a day after it: reserved a second before, the lease outlives it.
    const expires = start + 3000 + DAY;
    const check = await reserveCredentialCheck(ORG, email, expires - 1000);
    expect(check).toEqual({ outcome: 'reserved', failures: 4 });
    if (check.outcome !== 'reserved') return;
    expect(await reserveCredentialCheck(ORG, email, expires + 1000)).toEqual({
      outcome: 'refused',
      locked: false,
    });
    // Its failure comes after the count expired: the first of a new count.
    expect(await recordSignInFailure(ORG, email, lockoutMillis, expires + 2000, check)).toEqual({
      failures: 1,
      locked: false,
    });
  });
});
