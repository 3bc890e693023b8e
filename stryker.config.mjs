// @ts-check
/**
 * `npm run mutation` (docs/testing.md, "Mutation testing"): StrykerJS mutates the security modules
 * below and runs, against each mutant, only the unit and int tests that cover it.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  mutate: [
    'shared/domain/authorization.ts',
    'shared/domain/effective-permissions.ts',
    'shared/domain/federated-authentication.ts',
    'shared/domain/logout-hint.ts',
    'shared/domain/rate-limit.ts',
    'shared/domain/recovery-codes.ts',
    'shared/domain/sign-in-lockout.ts',
    'shared/domain/totp.ts',
    'shared/auth/passwords.ts',
    'shared/auth/token-request.ts',
    'shared/http/middleware/authorize.ts',
    'shared/pages/cookies.ts',
    'shared/pages/forms.ts',
  ],
  testRunner: 'vitest',
  // The config names the test files; no module-graph walk to find them again per mutant.
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  // Each test is told which mutants it runs, and a mutant runs only the tests that reach it.
  coverageAnalysis: 'perTest',
  // A mutant that does not compile is not tested. The checker's project holds the mutated files
  // and what they import only: checking the whole project again per mutant costs seconds each.
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  // Only mutants of changed code, or covered by changed tests, run again (reports/ is not in git).
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  // One test runner and one checker, so a 2-core machine keeps a core for other work.
  concurrency: 1,
  reporters: ['progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  // bin/mutation-summary.ts fails the command below `low`.
  thresholds: { high: 95, low: 90, break: null },
  ignorePatterns: ['dist', 'cdk.out', '.data', '.tmp', 'coverage', 'reports'],
};
