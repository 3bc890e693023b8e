import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The mutation run's order (vitest.mutation.config.ts): unit test files before int test files. A
 * mutant of a module constant runs every test file, and the run stops at the first failure, so
 * the files that load fastest go first.
 */
export default class UnitTestsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isUnit = (spec: TestSpecification) => spec.moduleId.includes('/test/unit/');
    return [...sorted.filter(isUnit), ...sorted.filter((spec) => !isUnit(spec))];
  }
}
