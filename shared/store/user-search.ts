import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  cutPage,
  matchesFilters,
  searchFold,
  searchRange,
  type UserSearchCriterion,
  type UserSearchCursor,
  type UserSearchFilters,
} from '../domain/user-search.js';
import { MAX_PAGE_SIZE } from '../schemas/common.js';
import { batchGetByKey } from './batch.js';
import { db, tableName } from './dynamo.js';
import { GroupMemberEntity, UserEntity } from './entities.js';
import { keys, USER_SEARCH_INDEXES } from './keys.js';
import { requireUserGroup } from './user-group-repository.js';
import { LISTED, type ListedUser, listUsers } from './user-repository.js';
import { assignments, isConditionFailure, update, writeOne } from './writes.js';

/**
 * Items a filtered page reads at most: a page of ACTIVE users among many INACTIVE ones fills up
 * from one Query instead of coming back nearly empty (a Query reads 1 MB at most anyway).
 */
const FILTERED_READ_BUDGET = 1000;
/** A group's members are read as ids, then as users in one BatchGetItem (100 keys at most). */
const MEMBER_READ_BUDGET = 100;

export interface UserSearchPage {
  users: ListedUser[];
  /** Where the next page continues; absent on the last page. */
  next?: UserSearchCursor;
}

const isFiltered = (filters: UserSearchFilters) =>
  filters.status !== undefined || filters.userType !== undefined;

const query = async (input: Omit<QueryCommandInput, 'TableName'>) => {
  const output = await db().send(new QueryCommand({ ...input, TableName: tableName() }));
  return { items: output.Items ?? [], hasMore: output.LastEvaluatedKey !== undefined };
};

/**
 * One page of a search (docs/user-search.md): one Query of the email or name index, whose entries
 * are the users themselves; a group's members are one Query of its membership items and one
 * BatchGetItem of their users, beside a read of the group (404 when it is not visible).
 */
export const searchUsers = (
  orgId: string,
  criterion: UserSearchCriterion,
  filters: UserSearchFilters,
  page: { limit: number; after?: UserSearchCursor },
): Promise<UserSearchPage> =>
  criterion.by === 'userGroupId'
    ? groupMembers(orgId, criterion.value, filters, page)
    : indexedUsers(orgId, criterion, filters, page);

const indexedUsers = async (
  orgId: string,
  criterion: Exclude<UserSearchCriterion, { by: 'userGroupId' }>,
  filters: UserSearchFilters,
  { limit, after }: { limit: number; after?: UserSearchCursor },
): Promise<UserSearchPage> => {
  const indexName = criterion.by === 'namePrefix' ? 'name' : 'email';
  const index = USER_SEARCH_INDEXES[indexName];
  const range = searchRange(criterion);
  const { items, hasMore } = await query({
    IndexName: index.index,
    KeyConditionExpression: `#pk = :pk AND ${criterion.by === 'email' ? '#sk = :range' : 'begins_with(#sk, :range)'}`,
    ProjectionExpression: `${LISTED.expression}, #sk`,
    ExpressionAttributeNames: { ...LISTED.names, '#pk': index.partitionKey, '#sk': index.sortKey },
    ExpressionAttributeValues: { ':pk': keys.userSearchPartition(orgId, indexName), ':range': range },
    // One more than a page: whether another page follows is known without reading an empty one.
    Limit: isFiltered(filters) ? Math.max(limit + 1, FILTERED_READ_BUDGET) : limit + 1,
    ...(after?.sortValue !== undefined && {
      ExclusiveStartKey: {
        ...keys.user(orgId, after.userId),
        [index.partitionKey]: keys.userSearchPartition(orgId, indexName),
        [index.sortKey]: after.sortValue,
      },
    }),
  });
  // A name's entry ends in `#<user id>`, and a long one is cut (searchKeyPart): the whole name decides.
  const prefix = searchFold(criterion.value);
  const inRange = (user: ListedUser) =>
    criterion.by !== 'namePrefix' || searchFold(user.name).startsWith(prefix);
  const users = items.map((item) => ({ user: LISTED.decode(item), sortValue: String(item[index.sortKey]) }));
  const cut = cutPage(users, ({ user }) => inRange(user) && matchesFilters(user, filters), limit, hasMore);
  const last =
    cut.next === 'afterLast' ? cut.page.at(-1) : cut.next === 'afterQuery' ? users.at(-1) : undefined;
  return {
    users: cut.page.map(({ user }) => user),
    ...(last && { next: { sortValue: last.sortValue, userId: last.user.id } }),
  };
};

const groupMembers = async (
  orgId: string,
  groupId: string,
  filters: UserSearchFilters,
  { limit, after }: { limit: number; after?: UserSearchCursor },
): Promise<UserSearchPage> => {
  const [members] = await Promise.all([
    query({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.organizationPartition(orgId),
        ':prefix': keys.groupMemberPrefix(groupId),
      },
      ConsistentRead: true,
      Limit: isFiltered(filters) ? MEMBER_READ_BUDGET : Math.min(limit, MEMBER_READ_BUDGET),
      ...(after && { ExclusiveStartKey: keys.groupMember(orgId, groupId, after.userId) }),
    }),
    requireUserGroup(orgId, groupId),
  ]);
  const memberIds = members.items.map((item) => GroupMemberEntity.decode(item).userId);
  const read = await batchGetByKey(
    memberIds.map((id) => UserEntity.key({ organizationId: orgId, id })),
    LISTED,
  );
  // A member whose user is gone (a removal half done) is skipped, as the membership's other side says.
  const users = memberIds.flatMap((id) => {
    const item = read.get(UserEntity.key({ organizationId: orgId, id }));
    return item ? [LISTED.decode(item)] : [];
  });
  const cut = cutPage(users, (user) => matchesFilters(user, filters), limit, members.hasMore);
  const lastId =
    cut.next === 'afterLast' ? cut.page.at(-1)?.id : cut.next === 'afterQuery' ? memberIds.at(-1) : undefined;
  return { users: cut.page, ...(lastId && { next: { userId: lastId } }) };
};

/**
 * Writes the search index entries of every user of the organization (an upgrade: users written
 * before search existed have none until their next change). Changes no user data, so it records
 * nothing; safe to repeat and to run beside live traffic.
 */
export const indexUsersForSearch = async (orgId: string): Promise<number> => {
  let indexed = 0;
  for (const status of ['ACTIVE', 'INACTIVE'] as const) {
    for (let page = 0; ; page++) {
      const { users, hasMore } = await listUsers(orgId, status, page, MAX_PAGE_SIZE);
      for (let start = 0; start < users.length; start += 25) {
        await Promise.all(
          users.slice(start, start + 25).map((user) => {
            const entries = assignments(keys.userSearchEntries({ ...user, organizationId: orgId }), 'i');
            return writeOne(
              update(keys.user(orgId, user.id), {
                update: `SET ${entries.update}`,
                // Entries of the name and email as read: a rename meanwhile wrote its own.
                condition: '#name = :name AND email = :email',
                names: { ...entries.names, '#name': 'name' },
                values: { ...entries.values, ':name': user.name, ':email': user.email },
              }),
            ).catch((error: unknown) => {
              // A user changed or gone meanwhile wrote its own entries, or needs none.
              if (!isConditionFailure(error)) throw error;
            });
          }),
        );
      }
      indexed += users.length;
      if (!hasMore) break;
    }
  }
  return indexed;
};
