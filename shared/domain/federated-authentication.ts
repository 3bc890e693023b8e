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
 * Seconds an upstream's `auth_time` may precede the moment the person was sent there. Only a
 * clock difference between the two services (NTP keeps theirs within a second or two): more,
 * and an upstream reusing its own session of a minute ago would pass for a fresh sign-in, as it
 * did with the library's 60 s of clock tolerance (which its `auth_time` check applies too).
 */
export const AUTH_TIME_SKEW_SECONDS = 5;

/**
 * The earliest `auth_time` (epoch seconds) that satisfies `maxAge` for a person sent upstream at
 * `sentAt` (epoch ms): counted from the sending, whatever the person took at the upstream.
 */
export const earliestAuthTime = (maxAge: number, sentAt: number) =>
  Math.floor(sentAt / 1000) - maxAge - AUTH_TIME_SKEW_SECONDS;

/**
 * The session's authentication time (epoch ms) for a federated sign-in: the upstream's
 * `auth_time` (epoch seconds) when it gave one, never later than now; without one, now (the
 * sign-in counts as a fresh authentication). A sign-in of the very second of the account's last
 * change (`auth_time` is whole seconds; an earlier one has ended: `upstreamSignInEnded`) counts
 * from the change, which ends the sessions that began before it.
 */
export const federatedAuthTime = (
  upstreamAuthTime: number | undefined,
  now: number,
  credentialsChangedAt = 0,
) =>
  upstreamAuthTime === undefined
    ? now
    : Math.min(now, Math.max(upstreamAuthTime * 1000, credentialsChangedAt));

/**
 * Whether the upstream's sign-in predates the account's last credentials change here (a password
 * set, a deactivation), which ended every earlier sign-in: it stands for no session, and the
 * person signs in upstream again. Taken as the session's time it would pass for a recent sign-in
 * (step-up, `max_age`) however old it is.
 */
export const upstreamSignInEnded = (upstreamAuthTime: number | undefined, credentialsChangedAt = 0) =>
  upstreamAuthTime !== undefined && upstreamAuthTime * 1000 + 999 < credentialsChangedAt;
