import { isUnicodeText } from './unicode-text.js';
/**
 * A user search (docs/user-search.md): one of four ways in, each one Query per page, and the
 * status and user type as filters on what it finds.
 */
export type UserSearchCriterion =
  | { by: 'email'; value: string }
  | { by: 'emailPrefix'; value: string }
  | { by: 'namePrefix'; value: string }
  | { by: 'userGroupId'; value: string };
export type UserSearchBy = UserSearchCriterion['by'];
export const USER_SEARCH_BY: readonly UserSearchBy[] = ['email', 'emailPrefix', 'namePrefix', 'userGroupId'];

/** What a search compares: NFKC-normalised and lower-cased, so `Ä`, `ä` and `a\u0308` are one. */
export const searchFold = (value: string): string => value.normalize('NFKC').toLowerCase();

/**
 * Index sort values hold at most this many bytes of a folded value: a sort key holds 1,024, and
 * NFKC can make a character many (`ﷺ` becomes 18), so a 200-character name could outgrow it.
 * Searches cut their prefix alike and compare whole names afterwards.
 */
const MAX_KEY_PART_BYTES = 900;

/** The folded value as an index sort value: cut at MAX_KEY_PART_BYTES, never inside a character. */
export const searchKeyPart = (value: string): string => {
  const folded = searchFold(value);
  if (Buffer.byteLength(folded) <= MAX_KEY_PART_BYTES) return folded;
  let cut = '';
  let bytes = 0;
  for (const character of folded) {
    bytes += Buffer.byteLength(character);
    if (bytes > MAX_KEY_PART_BYTES) break;
    cut += character;
  }
  return cut;
};

/** The criterion of a search's parameters, when exactly one is given. */
export const searchCriterionOf = (
  parameters: Partial<Record<UserSearchBy, string | undefined>>,
): UserSearchCriterion | undefined => {
  const given = USER_SEARCH_BY.filter((by) => parameters[by] !== undefined);
  const [by] = given;
  return by !== undefined && given.length === 1 ? { by, value: parameters[by] as string } : undefined;
};

export interface UserSearchFilters {
  readonly status?: 'ACTIVE' | 'INACTIVE' | undefined;
  readonly userType?: 'STANDARD' | 'RESTRICTED' | undefined;
}

/**
 * Where a page ends: the index sort value and user id of its last user, from which the next page's
 * Query continues. The organization and the index never travel in it: the store takes them from
 * the caller, so a cursor cannot reach into another organization's users.
 */
export interface UserSearchCursor {
  /** The index sort value (absent for a group's members, whose entries are keyed by user id). */
  readonly sortValue?: string;
  readonly userId: string;
}

/** The cursor of a page of a search by `by`; it continues only a search by the same. */
export const encodeSearchCursor = (by: UserSearchBy, cursor: UserSearchCursor): string =>
  Buffer.from(JSON.stringify({ b: by, s: cursor.sortValue, u: cursor.userId })).toString('base64url');

const USER_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** DynamoDB's limit of a sort key: a longer value names no entry, and DynamoDB refuses it as a start key. */
const MAX_SORT_KEY_BYTES = 1024;

/** The cursor, if it is one this search can continue from (its sort value the search reads). */
export const decodeSearchCursor = (
  cursor: string,
  criterion: UserSearchCriterion,
): UserSearchCursor | undefined => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof decoded !== 'object' || decoded === null) return undefined;
  const { b, s, u } = decoded as { b?: unknown; s?: unknown; u?: unknown };
  if (b !== criterion.by || typeof u !== 'string' || !USER_ID.test(u)) return undefined;
  if (criterion.by === 'userGroupId') return s === undefined ? { userId: u } : undefined;
  if (typeof s !== 'string' || !isUnicodeText(s)) return undefined;
  // An email search reads one sort value (the Query asks for it exactly), a name search a prefix.
  const range = searchRange(criterion);
  if (criterion.by === 'email' ? s !== range : !s.startsWith(range)) return undefined;
  if (Buffer.byteLength(s) > MAX_SORT_KEY_BYTES) return undefined;
  return { sortValue: s, userId: u };
};

/** The folded value every index sort value of the search starts with (all of it for an email). */
export const searchRange = (criterion: Exclude<UserSearchCriterion, { by: 'userGroupId' }>): string =>
  searchKeyPart(criterion.value);

export const matchesFilters = (
  user: { status: string; userType: string },
  filters: UserSearchFilters,
): boolean =>
  (filters.status === undefined || user.status === filters.status) &&
  (filters.userType === undefined || user.userType === filters.userType);

/**
 * Of one Query's items in index order, the first `limit` that `matches`; and whether the next page
 * continues after the last of them (`afterLast`: more of these items match), after the Query's
 * end (`afterQuery`: it stopped at its read budget), or nowhere.
 */
export const cutPage = <T>(
  items: readonly T[],
  matches: (item: T) => boolean,
  limit: number,
  queryHasMore: boolean,
): { page: T[]; next: 'afterLast' | 'afterQuery' | undefined } => {
  const page: T[] = [];
  let lastTaken = -1;
  for (const [index, item] of items.entries()) {
    if (page.length === limit) break;
    if (!matches(item)) continue;
    page.push(item);
    lastTaken = index;
  }
  if (page.length === limit && items.slice(lastTaken + 1).some(matches)) return { page, next: 'afterLast' };
  return { page, next: queryHasMore ? 'afterQuery' : undefined };
};
