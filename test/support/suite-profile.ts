import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * Set up by vitest.config.ts only under `npm run test:profile` (bin/suite-profile.ts), which names
 * the file to append to in IDP_SUITE_PROFILE: what each test file costs its worker (CPU between its
 * first and last hook, so not its imports) and how many DynamoDB requests it sends, by operation
 * (the `X-Amz-Target` of every HTTP request the worker makes). One JSON line per file.
 */
const output = process.env.IDP_SUITE_PROFILE as string;

const worker = globalThis as { idpRequestCounts?: Map<string, number> };
if (!worker.idpRequestCounts) {
  const counts = new Map<string, number>();
  worker.idpRequestCounts = counts;
  subscribe('http.client.request.start', (message) => {
    const target = (message as { request: { getHeader(name: string): unknown } }).request.getHeader(
      'x-amz-target',
    );
    if (typeof target !== 'string') return;
    const operation = target.split('.').pop() ?? target;
    counts.set(operation, (counts.get(operation) ?? 0) + 1);
  });
}
const counts = worker.idpRequestCounts;

let startedCpu = process.cpuUsage();
let startedCounts = new Map<string, number>();

beforeAll(() => {
  startedCpu = process.cpuUsage();
  startedCounts = new Map(counts);
});

afterAll(() => {
  const cpu = process.cpuUsage(startedCpu);
  const requests = Object.fromEntries(
    [...counts]
      .map(([operation, count]) => [operation, count - (startedCounts.get(operation) ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  const file = (expect.getState().testPath ?? '').replace(`${process.cwd()}/`, '');
  mkdirSync(dirname(output), { recursive: true });
  appendFileSync(
    output,
    `${JSON.stringify({ file, cpuSeconds: (cpu.user + cpu.system) / 1e6, requests })}\n`,
  );
});
