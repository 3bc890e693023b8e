import { defineConfig } from 'vitest/config';
import UnitTestsFirst from './test/support/unit-tests-first.js';
import base from './vitest.config.js';

/**
 * The tests `npm run mutation` (stryker.config.mjs) runs against each mutant: the unit and int
 * tests of the security modules it mutates. No e2e or browser test: a mutant is tested in a
 * second or so, not in the seconds a service takes to start.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/unit/authorization-request.unit.test.ts',
      'test/unit/authorize.unit.test.ts',
      'test/unit/browser-binding.unit.test.ts',
      'test/unit/effective-permissions.unit.test.ts',
      'test/unit/federated-authentication.unit.test.ts',
      'test/unit/logout-hint.unit.test.ts',
      'test/unit/passwords.unit.test.ts',
      'test/unit/rate-limit.unit.test.ts',
      'test/unit/sign-in-lockout.unit.test.ts',
      'test/unit/token-request.unit.test.ts',
      'test/unit/totp.unit.test.ts',
      'test/int/browser-sign-in.int.test.ts',
      'test/int/client-authentication.int.test.ts',
      'test/int/client-secret-rotation.int.test.ts',
      'test/int/credentials.int.test.ts',
      'test/int/federated-sign-in.int.test.ts',
      'test/int/idempotency-key.int.test.ts',
      'test/int/logout.int.test.ts',
      'test/int/sign-in-consent.int.test.ts',
      'test/int/sign-in-state.int.test.ts',
      'test/int/sign-in-steps.int.test.ts',
      'test/int/token-caches.int.test.ts',
    ],

    sequence: { sequencer: UnitTestsFirst },
  },
});
