import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest start first, so that on a fresh clone (no timings cached yet) the
 * workers do not end with one of them alone on a long file. After that Vitest's own order.
 */
const SLOWEST = [
  'test/infra/bundles.unit.test.ts',
  'test/browser/console.browser.test.ts',
  'test/e2e/npm-start.e2e.test.ts',
  'test/browser/sign-in.browser.test.ts',
  'test/e2e/fuzz.e2e.test.ts',
  'test/browser/console-manage.browser.test.ts',
  'test/browser/passkeys.browser.test.ts',
  'test/int/audit-records.int.test.ts',
  'test/infra/stack.unit.test.ts',
  'test/int/browser-sign-in.int.test.ts',
  'test/unit/client-package.unit.test.ts',
  'test/int/user-group-membership.int.test.ts',
  'test/int/user-paging.int.test.ts',
  'test/unit/typecheck.unit.test.ts',
  'test/e2e/sign-in.e2e.test.ts',
  'test/e2e/accounts.e2e.test.ts',
];

const rank = (spec: TestSpecification) => {
  const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file));
  return index < 0 ? SLOWEST.length : index;
};

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
