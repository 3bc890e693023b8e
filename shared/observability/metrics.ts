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
  | 'PasskeysRegistered'
  | 'PasskeySignInsRefused'
  /** A fault that was caught and recovered from: a retried conflict, an undone partial write. */
  | 'RecoveredFaults';

export const METRICS_NAMESPACE = 'IDP';

/**
 * Powertools Metrics: each request's counts go out as one CloudWatch embedded metric format
 * document on standard output when the request ends (`logMetrics`, in the group handler), no API
 * call. `POWERTOOLS_METRICS_DISABLED=true` (set by `npm start` and the tests) turns them off.
 * Concurrent requests of one process keep their own counts where the runtime runs them in its
 * invoke store (Lambda's multi-concurrency).
 */
class ServiceMetrics extends Metrics {
  /** `POWERTOOLS_METRICS_DISABLED` (or Powertools' dev mode), read when the instance was made. */
  get off(): boolean {
    return this.isDisabled();
  }
}

let instance: ServiceMetrics | undefined;

/**
 * The process's metrics, made on first use rather than at import: Powertools reads whether they
 * are off from the environment when the instance is made, and `npm start` sets that only after
 * the store's modules (which count) are imported.
 */
export const metrics = (): ServiceMetrics => {
  instance ??= new ServiceMetrics({ namespace: METRICS_NAMESPACE, serviceName: 'idp' });
  return instance;
};

/** Adds to a metric of the request in progress (nothing, when metrics are off: nothing would clear it). */
export const countMetric = (name: MetricName, value = 1): void => {
  const current = metrics();
  if (!current.off) current.addMetric(name, MetricUnit.Count, value);
};

/** The request's dimensions, set once its answer is known. */
export const dimensionRequest = (route: string, status: number): void => {
  const current = metrics();
  if (!current.off) current.addDimensions({ Route: route, StatusClass: `${Math.floor(status / 100)}xx` });
};
