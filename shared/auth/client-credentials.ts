import { createHash, timingSafeEqual } from 'node:crypto';
import { grantedIds } from '../domain/effective-permissions.js';
import { type ApiClientRecord, getApiClient } from '../store/api-client-repository.js';
import { resolveAccess } from './grant-resolution.js';
import { OAuthError } from './oauth-error.js';
import { grantedScope, signAccessToken } from './token-service.js';

/** Compares digests so neither content nor length leaks through timing. */
const secretsMatch = (presented: string, stored: string): boolean =>
  timingSafeEqual(
    createHash('sha256').update(presented).digest(),
    createHash('sha256').update(stored).digest(),
  );

/**
 * Accepts the client's secret, or the one it had before its last rotation while that one's grace
 * period lasts.
 */
export const authenticateClient = async (
  clientId: string,
  clientSecret: string,
  now = Date.now(),
): Promise<ApiClientRecord> => {
  const client = await getApiClient(clientId);
  // Compare both even when the client is unknown, so timing does not reveal which ids exist.
  const current = secretsMatch(clientSecret, client?.clientSecret ?? '');
  const inGrace = (client?.previousSecretExpiresAt ?? 0) > now;
  const previous = secretsMatch(clientSecret, client?.previousSecret ?? '') && inGrace;
  if (!client || !(current || previous)) {
    throw new OAuthError(401, 'invalid_client', 'Client authentication failed');
  }
  return client;
};

/** Client credentials grant: authenticate, compute the client's permissions, sign. */
export const issueClientToken = async (
  clientId: string,
  clientSecret: string,
  requestedScope?: string,
  now = Date.now(),
) => {
  const client = await authenticateClient(clientId, clientSecret, now);
  const access = await resolveAccess(
    client.organizationId,
    // Policies apply to RESTRICTED clients only (spec section 2).
    grantedIds({ roles: client.roles, policies: client.clientType === 'RESTRICTED' ? client.policies : [] }),
  );
  const scope = grantedScope(requestedScope);
  const token = await signAccessToken(
    {
      id: client.id,
      type: 'client',
      organizationId: client.organizationId,
      userType: client.clientType,
      ...access,
    },
    scope,
  );
  return { ...token, scope };
};
