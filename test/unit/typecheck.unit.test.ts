import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * The whole project type-checks (`npm run typecheck`). A test rather than a step before the tests,
 * so it runs beside them on the machine's cores instead of before them. TypeScript 7's native
 * compiler (`typescript-native` in package.json) checks it in a fifth of TypeScript 6's CPU time;
 * TypeScript 6 stays for the tools that use the compiler's JavaScript API (bin/build-client.ts,
 * test/support/type-check.ts, Stryker, openapi-typescript).
 */
// The browser script (shared/passkeys/browser) is a project of its own: DOM types, no Node's.
it('type-checks the whole project without an error', async () => {
  const { stdout, stderr } = await promisify(execFile)('npm', ['run', '--silent', 'typecheck'], {
    maxBuffer: 64 * 1024 * 1024,
  }).catch((failure: { stdout?: string; stderr?: string }) => ({
    stdout: failure.stdout ?? 'tsc failed',
    stderr: failure.stderr ?? '',
  }));
  expect(`${stdout}${stderr}`.trim()).toBe('');
}, 240_000);
