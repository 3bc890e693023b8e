import { clientNameOf } from './api-client-repository.js';
import { batchGetByKey } from './batch.js';
import { ApiClientEntity, UserEntity } from './entities.js';

const USER_NAME = UserEntity.projection('name');

/**
 * Names of the users and live API clients of the organization among `ids` (both kinds in one
 * BatchGetItem). Ids of other organizations, deleted clients and unknown ids are absent.
 */
export const serviceNames = async (orgId: string, ids: readonly string[]): Promise<Map<string, string>> => {
  const unique = [...new Set(ids)];
  const userKey = (id: string) => UserEntity.key({ organizationId: orgId, id });
  const clientKey = (id: string) => ApiClientEntity.key({ id });
  const read = await batchGetByKey([...unique.map(userKey), ...unique.map(clientKey)]);
  const names = new Map<string, string>();
  for (const id of unique) {
    const user = read.get(userKey(id));
    // Clients are not stored under the organization: `clientNameOf` checks that they belong to it.
    const client = read.get(clientKey(id));
    const name = user ? USER_NAME.decode(user).name : client && clientNameOf(client, orgId);
    if (name !== undefined) names.set(id, name);
  }
  return names;
};
