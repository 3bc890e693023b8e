/**
 * How recent a federated sign-in's authentication must be, and when it was: the application's
 * `prompt=login` or `max_age` travels to the SSO provider's upstream, and the upstream's
 * `auth_time` becomes the session's, so an upstream reusing its own session cannot pass for a
 * fresh sign-in (step-up).
 */

/**
 * The `max_age` (seconds) to send the upstream for an application's request. OpenID Connect
 * Core 3.1.2.1: `max_age=0` is equivalent to `prompt=login`; unlike `prompt=login` it makes the
 * upstream put `auth_time` in its ID token, which can then be checked.
 */
export const upstreamMaxAge = (request: { prompt?: string | undefined; maxAge?: number | undefined }) =>
  request.prompt === 'login' ? 0 : request.maxAge;

/**
 * The `max_age` to check the upstream's `auth_time` against at the callback, `now`: the upstream
 * judged it when the person reached it (after `sentAt`, epoch ms), so the time since counts too.
 */
export const maxAgeAtCallback = (maxAge: number, sentAt: number, now: number) =>
  maxAge + Math.max(0, Math.ceil((now - sentAt) / 1000));

/**
 * The session's authentication time (epoch ms) for a federated sign-in: the upstream's
 * `auth_time` (epoch seconds) when it gave one, never later than now; without one, now (the
 * sign-in counts as a fresh authentication). Never before the user's last credentials change:
 * that change ends earlier sessions (a password reset here), and says nothing of the upstream's.
 */
export const federatedAuthTime = (
  upstreamAuthTime: number | undefined,
  now: number,
  credentialsChangedAt = 0,
) => {
  if (upstreamAuthTime === undefined) return now;
  return Math.min(now, Math.max(upstreamAuthTime * 1000, credentialsChangedAt));
};
