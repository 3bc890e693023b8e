import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local for the whole run; each test file gets its own database in it.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/no-scan.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    env: { IDP_LOG_LEVEL: 'WARN', AWS_REGION: 'us-east-1' },
  },
});
