import { isLiveClient } from './api-client-repository.js';
import { batchGet } from './batch.js';
import { keys } from './keys.js';

/**
 * Names of the users and live API clients of the organization among `ids` (both kinds in one
 * BatchGetItem). Ids of other organizations, deleted clients and unknown ids are absent.
 */
export const serviceNames = async (orgId: string, ids: readonly string[]): Promise<Map<string, string>> => {
  const unique = [...new Set(ids)];
  const clientPartitions = new Set(unique.map((id) => keys.apiClient(id).pk));
  const items = await batchGet([
    ...unique.map((id) => keys.user(orgId, id)),
    ...unique.map((id) => keys.apiClient(id)),
  ]);
  const names = new Map<string, string>();
  for (const item of items) {
    // Clients are not stored under the organization: check that they belong to it.
    const isClient = clientPartitions.has(String(item.pk));
    if (isClient && (item.organizationId !== orgId || !isLiveClient(item))) continue;
    names.set(String(item.id), String(item.name));
  }
  return names;
};
