import { AsyncLocalStorage } from 'node:async_hooks';
import { config } from '../config.js';
import { logger } from '../http/logger.js';

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

/** Each request counts into its own map (the local server runs requests concurrently in one process). */
const requestCounts = new AsyncLocalStorage<Map<MetricName, number>>();

/** Adds to a metric of the request in progress; outside a request (the operator CLI) it is a no-op. */
export const countMetric = (name: MetricName, value = 1): void => {
  const counts = requestCounts.getStore();
  counts?.set(name, (counts.get(name) ?? 0) + value);
};

/**
 * One request's counts as a CloudWatch embedded metric format document: one log line, no API
 * call. Written here rather than through Powertools Metrics, whose per-invocation stores read the
 * environment on every call and cost about 6% of a token request's CPU (`npm run bench`).
 */
export const emfDocument = (
  counts: ReadonlyMap<MetricName, number>,
  route: string,
  status: number,
  now = Date.now(),
) => ({
  _aws: {
    Timestamp: now,
    CloudWatchMetrics: [
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [['service', 'Route', 'StatusClass']],
        Metrics: [...counts.keys()].map((name) => ({ Name: name, Unit: 'Count' })),
      },
    ],
  },
  service: 'idp',
  Route: route,
  StatusClass: `${Math.floor(status / 100)}xx`,
  ...Object.fromEntries(counts),
});

/**
 * Publishes one request's counts in one synchronous write, so concurrent requests never mix:
 * deployed as embedded metric format, locally to the log.
 */
const publish = (counts: Map<MetricName, number>, route: string, status: number) => {
  if (config().metrics === 'emf') {
    process.stdout.write(`${JSON.stringify(emfDocument(counts, route, status))}\n`);
    return;
  }
  logger.debug('metrics', { route, status, metrics: Object.fromEntries(counts) });
};

/** Runs one request with metrics of its own; `Requests` counts it by route and status class. */
export const measureRequest = async <T>(
  route: string,
  handle: () => Promise<T>,
  statusOf: (result: T) => number,
): Promise<T> => {
  const counts = new Map<MetricName, number>([['Requests', 1]]);
  let status = 500;
  try {
    const result = await requestCounts.run(counts, handle);
    status = statusOf(result);
    return result;
  } finally {
    publish(counts, route, status);
  }
};
