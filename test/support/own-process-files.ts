/**
 * Test files that keep a process of their own; every other file shares its vitest worker's
 * process with the files before it (vitest.config.ts). Here: the browser tests (a few long
 * files), those that set the log level or turn metrics on before Powertools reads it, those
 * that replace modules (`vi.mock`), which only a fresh import sees, and those that load modules
 * afresh under another environment (`vi.resetModules`).
 * `test/unit/own-process-files.unit.test.ts` finds the files that need to be listed.
 */
export const OWN_PROCESS = [
  'test/browser/**/*.test.ts',
  'test/e2e/management-api.e2e.test.ts',
  'test/e2e/sso-providers.e2e.test.ts',
  'test/unit/metrics.unit.test.ts',
  'test/unit/forgot-password-floor.unit.test.ts',
  'test/infra/seed.unit.test.ts',
  'test/infra/deployed-calls.unit.test.ts',
  'test/int/browser-sign-in.int.test.ts',
  'test/int/client-authentication.int.test.ts',
  'test/int/federated-sign-in.int.test.ts',
  'test/int/idempotency-key.int.test.ts',
  'test/int/logout.int.test.ts',
  'test/int/sign-in-consent.int.test.ts',
  'test/int/sign-in-steps.int.test.ts',
  'test/int/unknown-email-work.int.test.ts',
];

/** Whether `file` (relative to the project) is one of them. */
export const keepsOwnProcess = (file: string): boolean =>
  OWN_PROCESS.some((entry) =>
    entry.endsWith('/**/*.test.ts')
      ? file.startsWith(entry.slice(0, -'**/*.test.ts'.length))
      : file === entry,
  );
