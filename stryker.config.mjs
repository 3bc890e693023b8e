// @ts-check
/**
 * `npm run mutation` (docs/testing.md, "Mutation testing"): StrykerJS mutates the security modules
 * below and runs, against each mutant, only the unit and int tests that cover it.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  mutate: [
    // Authorization: the authorization request, effective permissions, the permission check.
    'shared/domain/authorization.ts',
    'shared/domain/effective-permissions.ts',
    'shared/http/middleware/authorize.ts',
    // Sign-in: its state and steps, the browser binding and CSRF, logout, federation state.
    'shared/auth/browser-sign-in.ts',
    'shared/auth/sign-in-requests.ts',
    'shared/auth/sign-in-steps.ts',
    'shared/auth/sign-in-step-forms.ts',
    'shared/auth/totp-enrolment.ts',
    'shared/auth/logout.ts',
    'shared/auth/federation/federated-sign-in.ts',
    'shared/domain/federated-authentication.ts',
    'shared/domain/logout-hint.ts',
    'shared/domain/sign-in-lockout.ts',
    'shared/pages/cookies.ts',
    'shared/pages/forms.ts',
    'shared/store/sign-in-state.ts',
    'shared/store/federation-state.ts',
    // Passwords, TOTP and recovery codes.
    'shared/auth/passwords.ts',
    'shared/domain/totp.ts',
    'shared/domain/recovery-codes.ts',
    'shared/store/credentials.ts',
    // Clients: authentication and the token request.
    'shared/auth/client-credentials.ts',
    'shared/auth/token-request.ts',
    // Idempotency and the rate-limit arithmetic.
    'shared/http/middleware/idempotency.ts',
    'shared/store/idempotency-records.ts',
    'shared/domain/rate-limit.ts',
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
