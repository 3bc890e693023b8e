import { AsyncLocalStorage } from 'node:async_hooks';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../config.js';
import { logger } from '../http/logger.js';

/** What the service counts, per request (dimensions: service, Route, StatusClass). */
export type MetricName =
  | 'Requests'
  | 'RateLimited'
  | 'IdempotentReplays'
  | 'TokensIssued'
  | 'TokensRefused'
  /** A fault that was caught and recovered from: a retried conflict, an undone partial write. */
  | 'RecoveredFaults';

export const METRICS_NAMESPACE = 'IDP';

/** Each request counts into its own map (the local server runs requests concurrently in one process). */
const requestCounts = new AsyncLocalStorage<Map<MetricName, number>>();
let metrics: Metrics | undefined;

/** Adds to a metric of the request in progress; outside a request (the operator CLI) it is a no-op. */
export const countMetric = (name: MetricName, value = 1): void => {
  const counts = requestCounts.getStore();
  counts?.set(name, (counts.get(name) ?? 0) + value);
};

/**
 * Publishes one request's counts in one synchronous step, so concurrent requests never mix:
 * deployed as CloudWatch embedded metric format (a log line, no API call), locally to the log.
 */
const publish = (counts: Map<MetricName, number>, route: string, status: number) => {
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'idp' });
  metrics.addDimensions({ Route: route, StatusClass: `${Math.floor(status / 100)}xx` });
  for (const [name, value] of counts) metrics.addMetric(name, MetricUnit.Count, value);
  if (config().metrics === 'emf') {
    metrics.publishStoredMetrics();
    return;
  }
  logger.debug('metrics', { route, status, metrics: Object.fromEntries(counts) });
  metrics.clearMetrics();
  metrics.clearDimensions();
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
