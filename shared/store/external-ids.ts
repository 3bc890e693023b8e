import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Conflict } from '../domain/errors.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { create, remove } from './writes.js';

/**
 * A SCIM directory's ids for users and groups (not unique): an entry per holder in the
 * organization's partition, written in the holder's transactions, found by prefix.
 */
type Holder = 'USER' | 'GROUP';

export const externalIdEntry = (orgId: string, holder: Holder, externalId: string, id: string) =>
  create(
    { ...keys.externalIdEntry(orgId, holder, externalId, id), id },
    () => new Conflict('External id', 'The entry exists already'),
  );

export const externalIdRemoval = (orgId: string, holder: Holder, externalId: string, id: string) =>
  remove(keys.externalIdEntry(orgId, holder, externalId, id));

/**
 * The ids of the holders of an external id (one strongly consistent Query, at most 100). An id
 * that starts like another's (`a` and `a#b`) shares its prefix: callers compare the holder's own.
 */
export const holdersOfExternalId = async (
  orgId: string,
  holder: Holder,
  externalId: string,
): Promise<string[]> => {
  const entries = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': keys.organizationPartition(orgId),
        ':prefix': keys.externalIdPrefix(holder, externalId),
      },
      ConsistentRead: true,
      Limit: 100,
    }),
  );
  return (entries.Items ?? []).map((item) => String(item.id));
};
