/** How near a secret's expiry hint is shown (the console's SSO screen). Pure, unit-tested. */

/** A secret expiring within this many days is flagged before it breaks sign-in. */
export const EXPIRY_WARNING_DAYS = 30;

export type ExpiryWarning = { level: 'expired' | 'soon'; text: string } | undefined;

/** 0 means no hint was given: nothing to warn about. */
export const expiryWarning = (expiresAt: number, now: number): ExpiryWarning => {
  if (!expiresAt) return undefined;
  const day = 24 * 3600 * 1000;
  if (expiresAt <= now) return { level: 'expired', text: 'The secret has expired: update it now.' };
  const days = Math.ceil((expiresAt - now) / day);
  return days <= EXPIRY_WARNING_DAYS
    ? { level: 'soon', text: `The secret expires in ${days} day${days === 1 ? '' : 's'}: update it soon.` }
    : undefined;
};
