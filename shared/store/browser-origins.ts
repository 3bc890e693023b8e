import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { originOf } from '../domain/applications.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';
import { put, remove, type Write } from './writes.js';

/**
 * The browser origins of registered applications (their redirect URIs'), one item per origin and
 * application, written and removed with the application: CORS asks whether any exists.
 */

const originsOf = (client: { redirectUris: readonly string[] }): string[] => [
  ...new Set(client.redirectUris.map(originOf)),
];

export const browserOriginWrites = (client: { id: string; redirectUris: readonly string[] }): Write[] =>
  originsOf(client).map((origin) => put({ ...keys.browserOrigin(origin, client.id), clientId: client.id }));

export const browserOriginRemovals = (client: { id: string; redirectUris: readonly string[] }): Write[] =>
  originsOf(client).map((origin) => remove(keys.browserOrigin(origin, client.id)));

/** What a change of an application's redirect URIs changes of its origins: only those that come or go. */
export const browserOriginChanges = (
  clientId: string,
  before: readonly string[],
  after: readonly string[],
): Write[] => {
  const [was, is] = [originsOf({ redirectUris: before }), originsOf({ redirectUris: after })];
  return [
    ...was
      .filter((origin) => !is.includes(origin))
      .map((origin) => remove(keys.browserOrigin(origin, clientId))),
    ...is
      .filter((origin) => !was.includes(origin))
      .map((origin) => put({ ...keys.browserOrigin(origin, clientId), clientId })),
  ];
};

/** Whether some live application redirects to this origin (one Query of at most one item). */
export const isRegisteredOrigin = async (origin: string): Promise<boolean> => {
  const { pk } = keys.browserOrigin(origin, '');
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      Limit: 1,
    }),
  );
  return (Items?.length ?? 0) > 0;
};
