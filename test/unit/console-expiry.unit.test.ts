import { expect, it } from 'vitest';
import { EXPIRY_WARNING_DAYS, expiryWarning } from '../../console/src/expiry.js';

const day = 24 * 3600 * 1000;
const now = 1_800_000_000_000;

it('warns about an SSO secret that expired, or expires within 30 days, and about nothing else', () => {
  expect(expiryWarning(0, now)).toBeUndefined();
  expect(expiryWarning(now, now)?.level).toBe('expired');
  expect(expiryWarning(now - day, now)?.text).toBe('The secret has expired: update it now.');
  expect(expiryWarning(now + 1, now)?.text).toBe('The secret expires in 1 day: update it soon.');
  expect(expiryWarning(now + EXPIRY_WARNING_DAYS * day, now)?.level).toBe('soon');
  expect(expiryWarning(now + EXPIRY_WARNING_DAYS * day + 1, now)).toBeUndefined();
});
