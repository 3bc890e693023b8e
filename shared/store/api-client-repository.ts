import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { UserType } from '../api/route-definition.js';
import { db, tableName } from './dynamo.js';
import { creationSortValue, keys } from './keys.js';

export interface ApiClientRecord {
  id: string;
  organizationId: string;
  name: string;
  /** Stored as issued: the spec's client list returns it. The table is encrypted at rest. */
  clientSecret: string;
  clientType: UserType;
  roles: string[];
  policies: string[];
  createdBy: string;
  createdDate: number;
  lastModifiedBy: string;
  lastModifiedDate: number;
  deleted?: boolean;
}

/** Writes the client, replacing one with the same id (operators re-run bootstrap safely). */
export const putApiClient = async (client: ApiClientRecord): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.apiClient(client.id),
        ...keys.apiClientDirectory(client.organizationId),
        gsi1sk: creationSortValue(client.createdDate, client.id),
        ...client,
      },
    }),
  );
};

export const getApiClient = async (clientId: string): Promise<ApiClientRecord | undefined> => {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.apiClient(clientId) }));
  return Item && isLiveClient(Item) ? (Item as ApiClientRecord) : undefined;
};

/** A deleted client keeps its item (for history) but no longer exists for anyone. */
export const isLiveClient = (item: Record<string, unknown>): boolean => item.deleted !== true;

/** The organization of a live client (projected read), for the per-request "still active?" check. */
export const liveClientOrganization = async (clientId: string): Promise<string | undefined> => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.apiClient(clientId),
      ProjectionExpression: 'organizationId, deleted',
    }),
  );
  return Item && isLiveClient(Item) ? String(Item.organizationId) : undefined;
};
