import { defineConfig } from 'vitest/config';
import { OWN_PROCESS } from './test/support/own-process-files.js';
import SlowestFirst from './test/support/slowest-first.js';

// The SDK's notice that its releases after January 2027 need Node 22 (docs/behaviour.md, "Limits and known
// gaps") would repeat in every worker's log; its documented switch, set here, reaches the global
// setup and every worker. Other warnings still show.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** `npm run test:profile` (bin/suite-profile.ts) has each file report its CPU and DynamoDB requests. */
const profiling = process.env.IDP_SUITE_PROFILE ? ['test/support/suite-profile.ts'] : [];

export default defineConfig({
  test: {
    // Test files share a process per worker instead of one each: each would otherwise load the
    // service again (about a second) and start it cold. What a file leaves behind is put back
    // before the next (test/support/fresh-file-state.ts).
    projects: [
      {
        extends: true,
        test: {
          name: 'own-process',
          include: OWN_PROCESS,
          setupFiles: ['test/support/scrypt-memo.ts', 'test/support/drop-file-tables.ts', ...profiling],
        },
      },
      {
        extends: true,
        test: {
          name: 'shared-process',
          include: ['test/**/*.test.ts'],
          exclude: OWN_PROCESS,
          isolate: false,
          setupFiles: [
            'test/support/scrypt-memo.ts',
            'test/support/fresh-file-state.ts',
            'test/support/drop-file-tables.ts',
            ...profiling,
          ],
        },
      },
    ],
    // One DynamoDB Local for the whole run; each test file gets its own database in it.
    globalSetup: ['test/support/global-setup.ts'],

    testTimeout: 60_000,
    // A browser page booting again (a reload) takes more than the default second on a loaded
    // 2-core machine; a poll that succeeds still returns at once.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one; much of a test's time is waiting for
    // DynamoDB Local, Chromium or a child process, so three workers keep both cores busy (on this
    // 2-core machine 195 s against 210 s with two).
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirst },
    // What a function needs to start (shared/config.ts); services started by tests use their own
    // origin, and the table of each test file's own database (test/support/isolated-database.ts).
    env: {
      IDP_LOG_LEVEL: 'WARN',
      AWS_REGION: 'us-east-1',
      IDP_TABLE_NAME: 'idp',
      IDP_ISSUER: 'http://localhost',
      // Tests check each change in the token the next request gets; the token endpoint's caches
      // (README, "Behaviour notes") are tested by the tests that turn them on.
      IDP_TOKEN_CLIENT_CACHE_SECONDS: '0',
      IDP_TOKEN_ACCESS_CACHE_SECONDS: '0',
      // Every sign-in test comes from 127.0.0.1; the limit per address (20 a minute) is tested by
      // test/e2e/sign-in-throttling.e2e.test.ts, which sets it back.
      IDP_SIGNIN_ATTEMPTS_PER_MINUTE: '100000',
      // DynamoDB Local shares this machine with every test worker and can pause for seconds; the
      // deployed timeouts (1 s, 2.5 s) are tested by test/int/aws-sdk-clients.int.test.ts.
      IDP_AWS_CONNECTION_TIMEOUT_MS: '10000',
      IDP_AWS_REQUEST_TIMEOUT_MS: '30000',
      // Metrics stay out of test output; test/unit/metrics.unit.test.ts turns them on.
      POWERTOOLS_METRICS_DISABLED: 'true',
      // Many tests set and check passwords: scrypt's N at 2^15 (the floor still verified) instead
      // of the default 2^17 costs a quarter of the time. The default is tested by
      // test/unit/passwords.unit.test.ts, the rehash to it by test/e2e/password-rehash.e2e.test.ts.
      IDP_PASSWORD_SCRYPT_LOG2_N: '15',
    },
  },
});
