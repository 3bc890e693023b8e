import { afterEach, describe, expect, it, vi } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { countMetric, measureRequest } from '../../shared/observability/metrics.js';

/** Embedded metric format documents written to standard output while `run` runs. */
const emfWrittenBy = async (run: () => Promise<unknown>) => {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line));
};

/** Metrics go out as the configuration says: embedded metric format, or the log. */
const publishMetricsAs = (kind: 'emf' | undefined) => {
  if (kind) process.env.IDP_METRICS = kind;
  else delete process.env.IDP_METRICS;
  reloadConfig();
};

afterEach(() => publishMetricsAs(undefined));

describe('request metrics', () => {
  it('publishes each request in its own document, by route and status class, even when requests overlap', async () => {
    publishMetricsAs('emf');
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    const documents = await emfWrittenBy(() =>
      Promise.all([
        measureRequest(
          'POST /oauth2/token',
          async () => {
            await pause();
            countMetric('TokensIssued');
            return 200;
          },
          (status) => status,
        ),
        measureRequest(
          'GET /idp/users',
          async () => {
            countMetric('RateLimited');
            await pause();
            countMetric('RecoveredFaults', 2);
            return 429;
          },
          (status) => status,
        ),
      ]),
    );
    const byRoute = Object.fromEntries(documents.map((document) => [document.Route, document]));
    expect(byRoute['POST /oauth2/token']).toMatchObject({ StatusClass: '2xx', Requests: 1, TokensIssued: 1 });
    expect(byRoute['POST /oauth2/token']).not.toHaveProperty('RateLimited');
    expect(byRoute['GET /idp/users']).toMatchObject({
      StatusClass: '4xx',
      Requests: 1,
      RateLimited: 1,
      RecoveredFaults: 2,
    });
    expect(byRoute['GET /idp/users']).not.toHaveProperty('TokensIssued');
    expect(byRoute['GET /idp/users']._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'IDP',
      Dimensions: [['service', 'Route', 'StatusClass']],
    });
  });

  it('counts a request that throws as a 5xx and publishes it all the same', async () => {
    publishMetricsAs('emf');
    const documents = await emfWrittenBy(() =>
      measureRequest(
        'GET /idp/roles',
        () => Promise.reject(new Error('boom')),
        () => 200,
      ).catch(() => undefined),
    );
    expect(documents).toEqual([
      expect.objectContaining({ Route: 'GET /idp/roles', StatusClass: '5xx', Requests: 1 }),
    ]);
  });

  it('writes no embedded metric format locally, and counting outside a request does nothing', async () => {
    const documents = await emfWrittenBy(async () => {
      countMetric('TokensIssued');
      await measureRequest(
        'GET /idp/permissions',
        async () => 200,
        (status) => status,
      );
    });
    expect(documents).toEqual([]);
  });
});
