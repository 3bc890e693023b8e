import { config } from '../config.js';
import { consoleClientId } from '../domain/console-client.js';
import { createApiClient, getApiClient } from '../store/api-client-repository.js';

export { consoleClientId };

/** The console's address for an organization: its redirect URI and its post-logout URI. */
export const consoleAddress = (organizationId: string) =>
  `${config().publicOrigin}/console/${encodeURIComponent(organizationId)}`;

/** Registers the organization's console application; answers whether it was there already. */
export const enableConsole = async (organizationId: string, createdBy: string) => {
  const id = consoleClientId(organizationId);
  if (await getApiClient(id)) return { id, created: false };
  await createApiClient({
    id,
    organizationId,
    name: 'IDP console',
    clientType: 'STANDARD',
    roles: [],
    policies: [],
    createdBy,
    // An application deleted before the service managed it left a tombstone under this id.
    overDeleted: true,
    flowType: 'authorization_code',
    tokenEndpointAuthMethod: 'none',
    redirectUris: [consoleAddress(organizationId)],
    postLogoutRedirectUris: [consoleAddress(organizationId)],
  });
  return { id, created: true };
};
