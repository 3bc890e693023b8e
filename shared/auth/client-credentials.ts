import { createHash, timingSafeEqual } from 'node:crypto';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { config } from '../config.js';
import { type EffectiveAccess, type GrantedIds, grantedIds } from '../domain/effective-permissions.js';
import { type ApiClientRecord, getApiClient } from '../store/api-client-repository.js';
import { resolveAccess } from './grant-resolution.js';
import { OAuthError } from './oauth-error.js';
import { grantedScope, signAccessToken } from './token-service.js';

const digest = (secret: string) => createHash('sha256').update(secret).digest();

/** A client record and the digests of the secrets it accepts, computed once per read. */
interface KnownClient {
  client: ApiClientRecord | undefined;
  current: Buffer;
  previous: Buffer;
}

const known = async (clientId: string): Promise<KnownClient> => {
  const client = await getApiClient(clientId);
  return {
    client,
    current: digest(client?.clientSecret ?? ''),
    previous: digest(client?.previousSecret ?? ''),
  };
};

/**
 * The token endpoint remembers, per instance, client records for at most 5 s and what a set of
 * grants amounts to for at most 30 s (README, "Behaviour notes"): a steady caller's token then
 * costs no read at all.
 */
const clients = new ExpiringCache<string, KnownClient>();
const accessOfGrants = new ExpiringCache<string, EffectiveAccess>();

/**
 * Compares digests, so neither content nor length leaks through timing, and compares both even
 * when the client is unknown, so timing does not reveal which ids exist.
 */
const acceptsSecret = ({ client, current, previous }: KnownClient, presented: Buffer, now: number) => {
  const matchesCurrent = timingSafeEqual(presented, current);
  const inGrace = (client?.previousSecretExpiresAt ?? 0) > now;
  const matchesPrevious = timingSafeEqual(presented, previous) && inGrace;
  return client !== undefined && (matchesCurrent || matchesPrevious);
};

/**
 * Accepts the client's secret, or the one it had before its last rotation while that one's grace
 * period lasts. A secret the remembered record refuses is checked against a fresh read, so a
 * rotation takes effect at once.
 */
export const authenticateClient = async (
  clientId: string,
  clientSecret: string,
  now = Date.now(),
): Promise<ApiClientRecord> => {
  const maxAge = config().tokenClientCacheSeconds * 1000;
  const presented = digest(clientSecret);
  let entry = await clients.get(clientId, maxAge, () => known(clientId));
  if (!acceptsSecret(entry, presented, now) && maxAge > 0) {
    clients.forget(clientId);
    entry = await clients.get(clientId, maxAge, () => known(clientId));
  }
  if (!entry.client || !acceptsSecret(entry, presented, now)) {
    throw new OAuthError(401, 'invalid_client', 'Client authentication failed');
  }
  return entry.client;
};

const cachedAccess = (orgId: string, ids: GrantedIds) =>
  accessOfGrants.get(
    JSON.stringify([orgId, ids.roleIds, ids.managedRoleIds, ids.policyIds]),
    config().tokenAccessCacheSeconds * 1000,
    () => resolveAccess(orgId, ids),
  );

/** Client credentials grant: authenticate, compute the client's permissions, sign. */
export const issueClientToken = async (
  clientId: string,
  clientSecret: string,
  requestedScope?: string,
  now = Date.now(),
) => {
  const client = await authenticateClient(clientId, clientSecret, now);
  const access = await cachedAccess(
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
