import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cutPage,
  decodeSearchCursor,
  encodeSearchCursor,
  matchesFilters,
  searchCriterionOf,
  searchFold,
  searchKeyPart,
  searchRange,
} from '../../shared/domain/user-search.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

describe('searchFold', () => {
  it('folds case and Unicode compatibility forms to one value', () => {
    expect(searchFold('ÄNGSTRÖM')).toBe('ängström');
    expect(searchFold('A\u0308ngstro\u0308m')).toBe('ängström');
    expect(searchFold('ｆｕｌｌ')).toBe('full');
  });
});

describe('searchKeyPart', () => {
  it('is the folded value, cut to what a sort key holds without splitting a character', () => {
    expect(searchKeyPart('Ann Lee')).toBe('ann lee');
    // U+FDFA folds to 18 characters (33 bytes): 200 of them would be 6,600 bytes.
    const long = searchKeyPart('\uFDFA'.repeat(200));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(900);
    expect(searchFold('\uFDFA'.repeat(200)).startsWith(long)).toBe(true);
    expect(Buffer.from(long).toString('utf8')).toBe(long);
    const emoji = searchKeyPart('😀'.repeat(300));
    expect(Buffer.byteLength(emoji)).toBe(900);
  });
});

describe('searchCriterionOf', () => {
  it('answers the one criterion given, and nothing for none or two', () => {
    expect(searchCriterionOf({ namePrefix: 'an' })).toEqual({ by: 'namePrefix', value: 'an' });
    expect(searchCriterionOf({})).toBeUndefined();
    expect(searchCriterionOf({ email: 'a@b.example', namePrefix: 'a' })).toBeUndefined();
  });
});

describe('search cursors', () => {
  const byName = { by: 'namePrefix', value: 'An' } as const;

  it('continue the search they came from', () => {
    const cursor = encodeSearchCursor('namePrefix', { sortValue: 'anna#u1', userId: 'u1' });
    expect(decodeSearchCursor(cursor, byName)).toEqual({ sortValue: 'anna#u1', userId: 'u1' });
    const member = encodeSearchCursor('userGroupId', { userId: 'u1' });
    expect(decodeSearchCursor(member, { by: 'userGroupId', value: 'g' })).toEqual({ userId: 'u1' });
  });

  it('are refused by another kind of search, outside the range, or malformed', () => {
    const cursor = encodeSearchCursor('namePrefix', { sortValue: 'anna#u1', userId: 'u1' });
    expect(decodeSearchCursor(cursor, { by: 'emailPrefix', value: 'an' })).toBeUndefined();
    expect(decodeSearchCursor(cursor, { by: 'namePrefix', value: 'bo' })).toBeUndefined();
    expect(decodeSearchCursor('not json', byName)).toBeUndefined();
    expect(decodeSearchCursor(Buffer.from('[1]').toString('base64url'), byName)).toBeUndefined();
    const badUser = encodeSearchCursor('namePrefix', { sortValue: 'anna', userId: 'no spaces' });
    expect(decodeSearchCursor(badUser, byName)).toBeUndefined();
    // A sort value no key can hold (over 1,024 bytes): DynamoDB would refuse it as a start key.
    const longest = encodeSearchCursor('namePrefix', { sortValue: `an${'é'.repeat(511)}`, userId: 'u1' });
    expect(decodeSearchCursor(longest, byName)).toBeDefined();
    const tooLong = encodeSearchCursor('namePrefix', { sortValue: `an${'é'.repeat(512)}`, userId: 'u1' });
    expect(decodeSearchCursor(tooLong, byName)).toBeUndefined();
    // An exact email search reads that one sort value: a longer one is outside it, not a prefix.
    const byEmail = { by: 'email', value: 'Ann@Example.com' } as const;
    const email = searchRange(byEmail);
    expect(
      decodeSearchCursor(encodeSearchCursor('email', { sortValue: email, userId: 'u1' }), byEmail),
    ).toBeDefined();
    const past = encodeSearchCursor('email', { sortValue: `${email}x`, userId: 'u1' });
    expect(decodeSearchCursor(past, byEmail)).toBeUndefined();
    const memberWithSort = encodeSearchCursor('userGroupId', { sortValue: 'x', userId: 'u1' });
    expect(decodeSearchCursor(memberWithSort, { by: 'userGroupId', value: 'g' })).toBeUndefined();
  });
});

describe('matchesFilters', () => {
  it('keeps what every given filter allows', () => {
    const user = { status: 'ACTIVE', userType: 'RESTRICTED' };
    expect(matchesFilters(user, {})).toBe(true);
    expect(matchesFilters(user, { status: 'ACTIVE', userType: 'RESTRICTED' })).toBe(true);
    expect(matchesFilters(user, { status: 'INACTIVE' })).toBe(false);
    expect(matchesFilters(user, { userType: 'STANDARD' })).toBe(false);
  });
});

describe('cutPage', () => {
  const even = (value: number) => value % 2 === 0;

  it('takes the first matches up to the limit and continues after the last taken while more match', () => {
    expect(cutPage([1, 2, 3, 4, 5, 6], even, 2, false)).toEqual({ page: [2, 4], next: 'afterLast' });
    expect(cutPage([1, 2, 3, 4, 5], even, 2, false)).toEqual({ page: [2, 4], next: undefined });
    expect(cutPage([1, 2, 3, 4, 5], even, 2, true)).toEqual({ page: [2, 4], next: 'afterQuery' });
    expect(cutPage([1, 3], even, 2, true)).toEqual({ page: [], next: 'afterQuery' });
    expect(cutPage([], even, 2, false)).toEqual({ page: [], next: undefined });
  });

  it('pages any index exactly once, in order, whatever the filter, limit and read budget', () => {
    console.log(`user search paging property: seed ${SEED}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 60 }),
        (values, modulus, limit, extraBudget) => {
          const index = [...values].sort((a, b) => a - b);
          const matches = (value: number) => value % modulus === 0;
          // One Query: from after `start`, at most `budget` items, and whether it stopped short.
          const budget = limit + 1 + extraBudget;
          const query = (after: number | undefined) => {
            const from = after === undefined ? 0 : index.findIndex((value) => value > after);
            const items = from < 0 ? [] : index.slice(from, from + budget);
            return { items, hasMore: from >= 0 && from + budget < index.length };
          };
          const answered: number[] = [];
          let after: number | undefined;
          for (let pages = 0; ; pages++) {
            expect(pages).toBeLessThanOrEqual(index.length + 1);
            const { items, hasMore } = query(after);
            const cut = cutPage(items, matches, limit, hasMore);
            expect(cut.page.length).toBeLessThanOrEqual(limit);
            answered.push(...cut.page);
            if (!cut.next) break;
            after = cut.next === 'afterLast' ? cut.page.at(-1) : items.at(-1);
          }
          expect(answered).toEqual(index.filter(matches));
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});
