import { createHash, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '../cache/bounded-map.js';
import { ExpiringCache } from '../cache/expiring-cache.js';
import { config } from '../config.js';
import { addressAllowed } from '../domain/applications.js';
import { type EffectiveAccess, type GrantedIds, grantedIds } from '../domain/effective-permissions.js';
import { Conflict } from '../domain/errors.js';
import { isCurrent, prefetchAccessVersions, type Stamped, stamped } from '../store/access-versions.js';
import { type ApiClientRecord, getApiClient, hasSecret } from '../store/api-client-repository.js';
import { spendClientAssertion } from '../store/used-client-assertions.js';
import { type AcceptedAssertion, acceptedAssertion, type PresentedAssertion } from './client-assertions.js';
import { resolveAccess } from './grant-resolution.js';
import { OAuthError } from './oauth-error.js';
import { currentSigningKey } from './signing-keys.js';
import { type PresentedClient, proofOf } from './token-request.js';
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
 * grants amounts to for at most 30 s (docs/behaviour.md): a steady caller's token then
 * costs no read but that of its organization's access versions, once a second. Each value is
 * stamped with the versions known when its read started; one older than a second is used only
 * while those are still the latest (shared/store/access-versions.ts), so a change that takes a
 * permission away, or deletes a client, reaches every token issued more than a second after it.
 */
const clients = new ExpiringCache<string, Stamped<KnownClient>>();
const accessOfGrants = new ExpiringCache<string, Stamped<EffectiveAccess>>();
/** The organization of each client read: a client never moves, so its versions can be read beside its record. */
const clientOrganizations = new BoundedMap<string, string>();

const loadClient = (clientId: string, now: number) => () =>
  stamped(clientOrganizations.get(clientId), now, async () => {
    const entry = await known(clientId);
    if (entry.client) clientOrganizations.set(clientId, entry.client.organizationId);
    return entry;
  });

/** The remembered value, unless `usable` refuses it: then it is read again. */
const rememberedOrRead = async <T>(
  cache: ExpiringCache<string, Stamped<T>>,
  key: string,
  maxAgeMillis: number,
  load: () => Promise<Stamped<T>>,
  usable: (entry: Stamped<T>) => Promise<boolean>,
  now: number,
): Promise<Stamped<T>> => {
  const remembered = cache.get(key, maxAgeMillis, load, now);
  const entry = await remembered;
  if (maxAgeMillis === 0 || (await usable(entry))) return entry;
  // Concurrent callers that found the same value out of date share one read.
  cache.forget(key, remembered);
  return cache.get(key, maxAgeMillis, load, now);
};

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

/** How a client proves itself: its secret, or an assertion signed with a registered key (private_key_jwt). */
export type ClientProof = string | PresentedAssertion;

/**
 * Whether the client's `proof` holds for a record read; an assertion's verdict is kept (to spend
 * its `jti`, or say why it was refused). Each record read is judged once.
 */
const checkerOf = (proof: ClientProof, now: number) => {
  const presented = typeof proof === 'string' ? digest(proof) : undefined;
  let judged: { entry: KnownClient; accepted: boolean } | undefined;
  let verdict: ReturnType<typeof acceptedAssertion>;
  const judge = (entry: KnownClient): boolean => {
    if (presented) {
      // A public application, or one that signs assertions, has no secret: nothing presented as one counts.
      return acceptsSecret(entry, presented, now) && entry.client !== undefined && hasSecret(entry.client);
    }
    verdict = acceptedAssertion((proof as PresentedAssertion).assertion, entry.client, now);
    return verdict !== undefined && 'jti' in verdict;
  };
  return {
    accepts: (entry: KnownClient) => {
      if (judged?.entry !== entry) judged = { entry, accepted: judge(entry) };
      return judged.accepted;
    },
    verdict: () => verdict,
  };
};

/** Spends an accepted assertion's `jti`: a second use within its lifetime is refused (RFC 7523 3). */
const spend = async (client: ApiClientRecord, verdict: AcceptedAssertion) => {
  try {
    await spendClientAssertion(client.id, verdict.jti, verdict.exp);
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    throw new OAuthError(401, 'invalid_client', 'The client assertion was used before (jti)', client);
  }
};

/**
 * Accepts the client's secret, or the one it had before its last rotation while that one's grace
 * period lasts; or an assertion signed with one of its registered keys, once. A proof the
 * remembered record refuses is checked against a fresh read, so a rotation takes effect at once;
 * so is a record its organization may have changed since (a deletion, other roles, other keys).
 * `meanwhile` is told the remembered record while that is checked.
 */
export const authenticateClient = async (
  clientId: string,
  proof: ClientProof,
  now = Date.now(),
  meanwhile?: (remembered: ApiClientRecord) => void,
): Promise<ApiClientRecord> => {
  const maxAge = config().tokenClientCacheSeconds * 1000;
  const checker = checkerOf(proof, now);
  const load = loadClient(clientId, now);
  // Read beside the record when an earlier read told the organization; needed once a second.
  prefetchAccessVersions(clientOrganizations.get(clientId), now);
  let { value: entry } = await rememberedOrRead(
    clients,
    clientId,
    maxAge,
    load,
    async (remembered) => {
      const { client } = remembered.value;
      // An unknown client is read again below anyway.
      if (!client) return true;
      if (checker.accepts(remembered.value)) meanwhile?.(client);
      return isCurrent(remembered, client.organizationId, now);
    },
    now,
  );
  if (!checker.accepts(entry) && maxAge > 0) {
    clients.forget(clientId);
    ({ value: entry } = await clients.get(clientId, maxAge, load, now));
  }
  if (!entry.client || !checker.accepts(entry)) {
    const verdict = checker.verdict();
    const reason =
      verdict && 'refused' in verdict ? `Client assertion refused: ${verdict.refused}` : undefined;
    throw new OAuthError(401, 'invalid_client', reason ?? 'Client authentication failed', entry.client);
  }
  const verdict = checker.verdict();
  if (verdict && 'jti' in verdict) await spend(entry.client, verdict);
  return entry.client;
};

/** What the client's grants amount to; policies apply to RESTRICTED clients only (spec section 2). */
const accessOf = async (client: ApiClientRecord, now: number): Promise<EffectiveAccess> => {
  const orgId = client.organizationId;
  const ids: GrantedIds = grantedIds({
    roles: client.roles,
    policies: client.clientType === 'RESTRICTED' ? client.policies : [],
  });
  const remembered = await rememberedOrRead(
    accessOfGrants,
    JSON.stringify([orgId, ids.roleIds, ids.managedRoleIds, ids.policyIds]),
    config().tokenAccessCacheSeconds * 1000,
    () => stamped(orgId, now, () => resolveAccess(orgId, ids, now)),
    (entry) => isCurrent(entry, orgId, now),
    now,
  );
  return remembered.value;
};

/**
 * Client credentials grant: authenticate, compute the client's permissions, sign. Only API
 * clients (`api_key`) use it, from their registered addresses when they registered any.
 */
export const issueClientToken = async (
  clientId: string,
  proof: ClientProof,
  requestedScope?: string,
  now = Date.now(),
  sourceIp?: string,
) => {
  // The remembered record's grants are looked up while the record is checked: no round trip waits
  // for the other (a record found out of date is read again, and its grants with it if they changed).
  const client = await authenticateClient(clientId, proof, now, (remembered) => {
    if (remembered.flowType === 'api_key') accessOf(remembered, now).catch(() => undefined);
  });
  if (client.flowType !== 'api_key') {
    throw new OAuthError(
      400,
      'unauthorized_client',
      'An application people sign in to uses the authorization_code grant',
      client,
    );
  }
  refuseOutsideAddresses(client, sourceIp);
  // What the token carries is judged when it is about to be signed (its key loaded), not when the
  // request began: a permission removed more than a second before the token is signed is never
  // in it, however long authentication took.
  await currentSigningKey();
  const access = await accessOf(client, Math.max(now, Date.now()));
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
  return { ...token, scope, client };
};

/**
 * The client of an authorization code or refresh token request: a confidential application
 * with its secret or assertion, by the method it registered; a public one by its id alone (PKCE
 * binds its codes). Only applications (`authorization_code`) use these grants.
 */
export const authenticateApplication = async (
  presented: PresentedClient,
  now = Date.now(),
): Promise<ApiClientRecord> => {
  const proof = proofOf(presented);
  if (proof === undefined) {
    const client = await getApiClient(presented.clientId);
    if (client?.tokenEndpointAuthMethod !== 'none') {
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed', client);
    }
    return client;
  }
  const client = await authenticateClient(presented.clientId, proof, now);
  if (client.flowType !== 'authorization_code') {
    throw new OAuthError(
      400,
      'unauthorized_client',
      'An API client uses the client_credentials grant',
      client,
    );
  }
  refuseOtherMethod(client, presented.method);
  return client;
};

/** An application authenticates by the method it registered, and no other. */
export const refuseOtherMethod = (client: ApiClientRecord, method: string): void => {
  if (client.flowType === 'authorization_code' && client.tokenEndpointAuthMethod !== method) {
    throw new OAuthError(
      401,
      'invalid_client',
      `The client authenticates with ${client.tokenEndpointAuthMethod}`,
      client,
    );
  }
};

/** An API client that registered addresses uses its credentials from those alone. */
export const refuseOutsideAddresses = (client: ApiClientRecord, sourceIp: string | undefined): void => {
  if (sourceIp !== undefined && !addressAllowed(client.remoteAddresses, sourceIp)) {
    throw new OAuthError(
      400,
      'unauthorized_client',
      'The client may not use its credentials from this address',
      client,
    );
  }
};
