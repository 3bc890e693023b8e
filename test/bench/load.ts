import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** Requests per second one target sustains at a concurrency; non-2xx answers fail the run. */
export const requestsPerSecond = async (
  request: LoadRequest,
  connections: number,
  seconds: number,
): Promise<number> => {
  const result = await autocannon({
    url: request.url,
    method: request.method ?? 'GET',
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.body !== undefined ? { body: request.body } : {}),
    connections,
    duration: seconds,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${request.url}: ${failed} of ${result.requests.total} requests failed`);
  return result.requests.total / seconds;
};
