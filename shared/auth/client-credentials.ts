import { createHash, timingSafeEqual } from 'node:crypto';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { config } from '../config.js';
import { addressAllowed } from '../domain/applications.js';
import { type EffectiveAccess, type GrantedIds, grantedIds } from '../domain/effective-permissions.js';
import { type ApiClientRecord, getApiClient, hasSecret } from '../store/api-client-repository.js';
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
  // A public application has no secret: nothing a caller presents authenticates it.
  if (!entry.client || !hasSecret(entry.client) || !acceptsSecret(entry, presented, now)) {
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

/**
 * Client credentials grant: authenticate, compute the client's permissions, sign. Only API
 * clients (`api_key`) use it, from their registered addresses when they registered any.
 */
export const issueClientToken = async (
  clientId: string,
  clientSecret: string,
  requestedScope?: string,
  now = Date.now(),
  sourceIp?: string,
) => {
  const client = await authenticateClient(clientId, clientSecret, now);
  if (client.flowType !== 'api_key') {
    throw new OAuthError(
      400,
      'unauthorized_client',
      'An application people sign in to uses the authorization_code grant',
    );
  }
  if (sourceIp !== undefined && !addressAllowed(client.remoteAddresses, sourceIp)) {
    throw new OAuthError(400, 'unauthorized_client', 'The client may not request tokens from this address');
  }
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

/**
 * The client of an authorization code or refresh token request: a confidential application
 * with its secret, by the method it registered; a public one by its id alone (PKCE binds its
 * codes). Only applications (`authorization_code`) use these grants.
 */
export const authenticateApplication = async (
  presented: { clientId: string; clientSecret?: string; method: string },
  now = Date.now(),
): Promise<ApiClientRecord> => {
  if (!presented.clientSecret) {
    const client = await getApiClient(presented.clientId);
    if (client?.tokenEndpointAuthMethod !== 'none') {
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed');
    }
    return client;
  }
  const client = await authenticateClient(presented.clientId, presented.clientSecret, now);
  if (client.flowType !== 'authorization_code') {
    throw new OAuthError(400, 'unauthorized_client', 'An API client uses the client_credentials grant');
  }
  if (client.tokenEndpointAuthMethod !== presented.method) {
    throw new OAuthError(
      401,
      'invalid_client',
      `The client authenticates with ${client.tokenEndpointAuthMethod}`,
    );
  }
  return client;
};
