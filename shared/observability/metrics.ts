import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** What the service counts, per request (dimensions: service, Route, StatusClass). */
export type MetricName =
  | 'Requests'
  | 'RateLimited'
  | 'IdempotentReplays'
  | 'TokensIssued'
  | 'TokensRefused'
  | 'SignIns'
  | 'SignInsRefused'
  | 'SignInLockouts'
  | 'SignOuts'
  | 'SignInsThrottled'
  | 'PasswordsSet'
  | 'PasswordResetsRequested'
  | 'MfaEnrolments'
  | 'MfaChallengesRefused'
  | 'RecoveryCodesUsed'
  | 'ConsentsGiven'
  | 'EmailsDelivered'
  | 'EmailDeliveryFailures'
  | 'FederationFailures'
  | 'UsersProvisioned'
  /** A fault that was caught and recovered from: a retried conflict, an undone partial write. */
  | 'RecoveredFaults';

export const METRICS_NAMESPACE = 'IDP';

/**
 * Powertools Metrics: each request's counts go out as one CloudWatch embedded metric format
 * document on standard output when the request ends (`logMetrics`, in the group handler), no API
 * call. `POWERTOOLS_METRICS_DISABLED=true` (set by `npm start` and the tests) keeps them out of
 * local output. Concurrent requests of one process keep their own counts when the runtime runs
 * them in its invoke store (Lambda's multi-concurrency, and the local server).
 */
class ServiceMetrics extends Metrics {
  /** `POWERTOOLS_METRICS_DISABLED` (or Powertools' dev mode), read when the instance was made. */
  get off(): boolean {
    return this.isDisabled();
  }
}

export const metrics = new ServiceMetrics({ namespace: METRICS_NAMESPACE, serviceName: 'idp' });

/** Adds to a metric of the request in progress (nothing, when metrics are off: nothing would clear it). */
export const countMetric = (name: MetricName, value = 1): void => {
  if (!metrics.off) metrics.addMetric(name, MetricUnit.Count, value);
};

/** The request's dimensions, set once its answer is known. */
export const dimensionRequest = (route: string, status: number): void => {
  if (!metrics.off) metrics.addDimensions({ Route: route, StatusClass: `${Math.floor(status / 100)}xx` });
};
