import { expect } from 'vitest';
import type {
  UserSearchCriterion,
  UserSearchCursor,
  UserSearchFilters,
} from '../../shared/domain/user-search.js';
import { searchUsers } from '../../shared/store/user-search.js';
import { measureRoundTrips, roundTrips } from './round-trips.js';

/** Every page of a search, each checked to cost one round trip of the commands `perPage`. */
export const everySearchPage = async (
  orgId: string,
  criterion: UserSearchCriterion,
  filters: UserSearchFilters = {},
  limit = 100,
  perPage: { roundTrips: number; commands: string[] } = { roundTrips: 1, commands: ['QueryCommand'] },
) => {
  const pages: string[][] = [];
  let after: UserSearchCursor | undefined;
  do {
    const { result, recorded, commands } = await measureRoundTrips(`search page ${pages.length + 1}`, () =>
      searchUsers(orgId, criterion, filters, { limit, ...(after && { after }) }),
    );
    expect(commands.sort()).toEqual(perPage.commands);
    expect(roundTrips(recorded)).toBe(perPage.roundTrips);
    expect(result.users.length).toBeLessThanOrEqual(limit);
    pages.push(result.users.map((user) => user.email));
    after = result.next;
  } while (after);
  return pages;
};
