import { randomUUID } from 'node:crypto';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../bin/local/api-gateway.js';
import { buildEvent } from '../../bin/local/gateway/payload.js';

/**
 * Request metrics through Powertools Metrics and the group handler's envelope: one embedded
 * metric format document per request, dimensioned by route and status class.
 */

type Handle = () => Promise<{ body: Record<string, unknown> }>;
let handle: Handle = async () => ({ body: {} });
let handler: (event: unknown, context: unknown) => Promise<unknown>;
let countMetric: typeof import('../../shared/observability/metrics.js').countMetric;

beforeAll(async () => {
  // The tests' environment turns metrics off; this file turns them on before Powertools reads it.
  delete process.env.POWERTOOLS_METRICS_DISABLED;
  vi.resetModules();
  ({ countMetric } = await import('../../shared/observability/metrics.js'));
  const { groupHandler } = await import('../../shared/http/group-handler.js');
  const { openApiRoutes } = await import('../../shared/api/routes/openapi.js');
  handler = groupHandler(openApiRoutes, { getOpenApiDocument: () => handle() }) as typeof handler;
});
afterEach(() => {
  delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
});

const invoke = () =>
  handler(
    buildEvent(
      {
        method: 'GET',
        rawPath: '/idp/openapi.json',
        rawQueryString: '',
        headers: {},
        body: Buffer.alloc(0),
        sourceIp: '127.0.0.1',
        protocol: 'HTTP/1.1',
      },
      { routeKey: 'GET /idp/openapi.json', pathParameters: {} },
      { requestId: randomUUID(), now: new Date() },
    ),
    lambdaContext('openapi'),
  );

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

describe('request metrics', () => {
  it('publishes one document per request, by route and status class, with what the request counted', async () => {
    handle = async () => {
      countMetric('TokensIssued');
      countMetric('RecoveredFaults', 2);
      return { body: {} };
    };
    const [document, ...others] = await emfWrittenBy(invoke);
    expect(others).toEqual([]);
    expect(document).toMatchObject({
      service: 'idp',
      Route: 'GET /idp/openapi.json',
      StatusClass: '2xx',
      Requests: 1,
      TokensIssued: 1,
      RecoveredFaults: 2,
    });
    expect(document._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'IDP',
      Dimensions: [['service', 'Route', 'StatusClass']],
    });
  });

  it('counts a request that failed as a 5xx and publishes it all the same', async () => {
    handle = async () => {
      countMetric('RateLimited');
      throw new Error('boom');
    };
    const documents = await emfWrittenBy(invoke);
    expect(documents).toEqual([
      expect.objectContaining({
        Route: 'GET /idp/openapi.json',
        StatusClass: '5xx',
        Requests: 1,
        RateLimited: 1,
      }),
    ]);
  });

  it("keeps overlapping requests apart where one instance runs several at once (Lambda's multi-concurrency)", async () => {
    process.env.AWS_LAMBDA_MAX_CONCURRENCY = '2';
    const store = await InvokeStore.getInstanceAsync(true);
    // Each invocation goes on only once both have started: they overlap, whatever the timing.
    let started = 0;
    let bothStarted: () => void = () => {};
    const overlapping = new Promise<void>((resolve) => {
      bothStarted = resolve;
    });
    handle = async () => {
      const first = started++ === 0;
      if (first) countMetric('TokensIssued');
      if (started === 2) bothStarted();
      await overlapping;
      if (!first) countMetric('RateLimited');
      return { body: {} };
    };
    const inInvocation = () =>
      store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: randomUUID() }, () => invoke());
    const documents = await emfWrittenBy(() => Promise.all([inInvocation(), inInvocation()]));
    expect(documents).toHaveLength(2);
    const [withToken, withLimit] = [
      documents.find((document) => 'TokensIssued' in document),
      documents.find((document) => 'RateLimited' in document),
    ];
    expect(withToken).toMatchObject({ Requests: 1, TokensIssued: 1 });
    expect(withToken).not.toHaveProperty('RateLimited');
    expect(withLimit).toMatchObject({ Requests: 1, RateLimited: 1 });
    expect(withLimit).not.toHaveProperty('TokensIssued');
  });
});
