import { describe, expect, it } from 'vitest';
import { applyScimPatch, type ScimJson } from '../../shared/scim/patch.js';
import { SCIM_SCHEMAS } from '../../shared/scim/schema-ids.js';

/**
 * A PATCH adding or removing many members of a large group costs about what replacing the whole
 * list costs: each is one pass over the members, not one per member added or removed (the SCIM
 * function has 10 s, lib/idp-function.ts, and a PATCH may grow a group past 20,000 members). No
 * duration is asserted: each cost is compared with the replace's, measured in the same run.
 */
const MEMBERS = 10_000;
const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const large = (): ScimJson => ({
  schemas: [SCIM_SCHEMAS.group],
  id: 'g1',
  displayName: 'Large',
  members: Array.from({ length: MEMBERS }, (_, i) => ({
    value: idOf(i),
    $ref: `https://idp.example/scim/v2/Users/${idOf(i)}`,
    type: 'User',
  })),
  meta: { resourceType: 'Group' },
});
const values = (count: number, from: number) =>
  Array.from({ length: count }, (_, i) => ({ value: idOf(from + i) }));

/** The least of three runs (a pause of the machine lengthens one run, not all three), and its answer. */
const cost = (operations: Record<string, unknown>[]) => {
  let least = Number.POSITIVE_INFINITY;
  let members: string[] = [];
  for (let run = 0; run < 3; run++) {
    const group = large();
    const started = performance.now();
    const patched = applyScimPatch(
      group,
      { schemas: [SCIM_SCHEMAS.patchOp], Operations: operations },
      'Group',
    );
    least = Math.min(least, performance.now() - started);
    members = (patched.members as { value: string }[]).map((member) => member.value);
  }
  return { cost: least, members };
};
/** The most a change may cost beside the replace of the whole list; quadratic work costs 25 times it and more. */
const AT_MOST_TIMES_THE_REPLACE = 5;

describe('a PATCH of many members of a large group', () => {
  it('adds or removes them in about the time a replace of the whole list takes', { timeout: 120_000 }, () => {
    // The control: the whole list replaced, one pass over it.
    const replace = cost([{ op: 'replace', path: 'members', value: values(MEMBERS - 1_000, 1_000) }]);
    expect(replace.members).toHaveLength(MEMBERS - 1_000);

    const removedByList = cost([{ op: 'remove', path: 'members', value: values(1_000, 0) }]);
    expect(removedByList.members).toEqual(values(MEMBERS - 1_000, 1_000).map((member) => member.value));

    // Okta's form, as many as one PATCH may carry.
    const removedByFilter = cost(
      values(100, 0).map(({ value }) => ({ op: 'remove', path: `members[value eq "${value}"]` })),
    );
    expect(removedByFilter.members).toEqual(values(MEMBERS - 100, 100).map((member) => member.value));

    const added = cost([{ op: 'add', path: 'members', value: values(MEMBERS, MEMBERS / 2) }]);
    expect(added.members).toEqual(values(MEMBERS + MEMBERS / 2, 0).map((member) => member.value));

    for (const [name, measured] of Object.entries({ removedByList, removedByFilter, added }))
      expect(measured.cost / replace.cost, name).toBeLessThan(AT_MOST_TIMES_THE_REPLACE);
  });
});
