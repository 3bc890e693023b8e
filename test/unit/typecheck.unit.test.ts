import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * The whole project type-checks (`npm run typecheck`, tsc with tsconfig.json). A test rather than a
 * step before the tests, so it runs beside them on the machine's cores instead of before them.
 */
it('type-checks the whole project without an error', async () => {
  const { stdout, stderr } = await promisify(execFile)('npx', ['tsc', '--noEmit', '--pretty', 'false'], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch((failure: { stdout?: string; stderr?: string }) => ({
    stdout: failure.stdout ?? 'tsc failed',
    stderr: failure.stderr ?? '',
  }));
  expect(`${stdout}${stderr}`.trim()).toBe('');
}, 240_000);
