import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { keepsOwnProcess } from '../support/own-process-files.js';

/**
 * A file that replaces modules or sets what Powertools reads when it is made must keep a process
 * of its own: in a shared one its mock or setting would meet modules already loaded, and the file
 * would test something else than it says.
 */
const NEEDS_OWN_PROCESS = [
  /\bvi\.(mock|doMock)\(/,
  /process\.env\.IDP_LOG_LEVEL\s*=/,
  /process\.env\.POWERTOOLS_METRICS_DISABLED/,
];

const testFiles = (readdirSync('test', { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => join('test', file));

it('lists every test file that replaces modules or sets the log level or metrics', () => {
  const needing = testFiles.filter((file) =>
    NEEDS_OWN_PROCESS.some((pattern) => pattern.test(readFileSync(file, 'utf8'))),
  );
  // Positive control: the files known to need it are found.
  expect(needing).toContain(join('test', 'unit', 'metrics.unit.test.ts'));
  expect(needing).toContain(join('test', 'int', 'logout.int.test.ts'));
  expect(needing.filter((file) => !keepsOwnProcess(file))).toEqual([]);
});

it('recognizes the listed files and no others', () => {
  expect(keepsOwnProcess('test/browser/console.browser.test.ts')).toBe(true);
  expect(keepsOwnProcess('test/e2e/sso-providers.e2e.test.ts')).toBe(true);
  expect(keepsOwnProcess('test/e2e/sso-providers-more.e2e.test.ts')).toBe(false);
  expect(keepsOwnProcess('test/unit/config.unit.test.ts')).toBe(false);
});
