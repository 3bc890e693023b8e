import { config } from '../config.js';
import { consoleClientId } from '../domain/console-client.js';
import { changeApiClient, createApiClient, getApiClient } from '../store/api-client-repository.js';

export { consoleClientId };

/** The console's address for an organization: its redirect URI and its post-logout URI. */
export const consoleAddress = (organizationId: string) =>
  `${config().publicOrigin}/console/${encodeURIComponent(organizationId)}`;

/**
 * What the console's application must be that a change could have made otherwise: the API changed
 * it before the service managed it (an administrator could add a redirect URI where members'
 * codes would land), and a new public origin leaves the old one's addresses.
 */
const managedShape = (organizationId: string) => ({
  name: 'IDP console',
  redirectUris: [consoleAddress(organizationId)],
  postLogoutRedirectUris: [consoleAddress(organizationId)],
  requirePushedAuthorizationRequests: false,
});

/**
 * Registers the organization's console application, or puts it back as the service registers it.
 * Answers whether it was created, and the fields it put back.
 */
export const enableConsole = async (organizationId: string, createdBy: string) => {
  const id = consoleClientId(organizationId);
  const existing = await getApiClient(id);
  if (existing) {
    const managed = managedShape(organizationId);
    const drifted = Object.fromEntries(
      Object.entries(managed).filter(
        ([field, value]) =>
          JSON.stringify(existing[field as keyof typeof managed] ?? false) !== JSON.stringify(value),
      ),
    );
    if (Object.keys(drifted).length > 0)
      await changeApiClient(organizationId, id, drifted, createdBy, Date.now(), { byService: true });
    return { id, created: false, restored: Object.keys(drifted) };
  }
  await createApiClient({
    id,
    organizationId,
    ...managedShape(organizationId),
    clientType: 'STANDARD',
    roles: [],
    policies: [],
    createdBy,
    // An application deleted before the service managed it left a tombstone under this id.
    overDeleted: true,
    flowType: 'authorization_code',
    tokenEndpointAuthMethod: 'none',
  });
  return { id, created: true, restored: [] };
};
