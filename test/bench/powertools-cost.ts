import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Request } from '@middy/core';
import { lambdaContext } from '../../bin/local/api-gateway.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric, dimensionRequest, metrics } from '../../shared/observability/metrics.js';

/**
 * What Powertools Logger and Metrics cost a request, measured beside the request itself (issue
 * 24: where one costs more than 10% of the token or read path's CPU, the service would keep its
 * own). Per request the functions run Powertools' `injectLambdaContext` and `logMetrics`
 * middlewares, log a DEBUG line and count two or three metrics with their dimensions, published as
 * one embedded metric format line: exactly that, here, in a loop, with standard output discarded
 * as for the requests it is compared with.
 */
const invocation = () =>
  ({
    event: {},
    context: lambdaContext('oauth'),
    response: undefined,
    error: undefined,
    internal: {},
  }) as unknown as Request;

/**
 * Logger: the Lambda context put on the invocation's log lines, and its DEBUG line, which INFO
 * (deployed) filters out: API Gateway's access log records each request.
 */
const loggerPart = () => {
  const middleware = injectLambdaContext(logger, { resetKeys: true });
  return async () => {
    const request = invocation();
    await middleware.before?.(request);
    logger.debug('request', {
      requestId: 'bench',
      route: 'POST /oauth2/token',
      status: 200,
      latencyMs: 1,
      organizationId: 'org',
      principalId: 'principal',
    });
    await middleware.after?.(request);
  };
};

/** Metrics: a token request's two counts and its dimensions, published as one line. */
const metricsPart = () => {
  const middleware = logMetrics(metrics());
  return async () => {
    const request = invocation();
    await middleware.before?.(request);
    countMetric('Requests');
    countMetric('TokensIssued');
    dimensionRequest('POST /oauth2/token', 200);
    await middleware.after?.(request);
  };
};

/** CPU milliseconds of `work`, per call, over `count` calls after as many to warm it up (JIT). */
export const cpuPerCall = async (work: () => Promise<unknown>, count: number) => {
  for (let warmup = 0; warmup < count; warmup++) await work();
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000 / count;
};

/** Standard output discarded while `work` runs (the requests' log and metric lines), restored after. */
export const withoutOutput = async <T>(work: () => Promise<T>): Promise<T> => {
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    return await work();
  } finally {
    process.stdout.write = write;
  }
};

export const benchPowertoolsCost = (count: number) =>
  withoutOutput(async () => ({
    logger: await cpuPerCall(loggerPart(), count),
    metrics: await cpuPerCall(metricsPart(), count),
  }));
