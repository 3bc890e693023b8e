import { routeUrl } from '../shared/api/route-url.js';
import { clientsRoutes } from '../shared/api/routes/clients.js';
import {
  requirePermissionsWithinCaller,
  requirePoliciesWithinCaller,
  requireRolesWithinCaller,
  requireTargetTypeWithinCaller,
  requireUserTypeWithinCaller,
} from '../shared/auth/access-ceiling.js';
import type { Principal } from '../shared/auth/principal.js';
import { clientSecretShownTo } from '../shared/domain/access-ceiling.js';
import { Conflict, NotFound } from '../shared/domain/errors.js';
import { ALL_PERMISSION_IDS } from '../shared/domain/permission-catalogue.js';
import { type GroupHandlers, groupHandler, type SecretRereader } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { nextPageLink } from '../shared/http/next-page-link.js';
import {
  type ApiClientRecord,
  changeApiClient,
  createApiClient,
  deleteApiClient,
  getApiClient,
  idTokenSigningAlgorithm,
  listApiClients,
  rotateClientSecret,
  secretIssuedAt,
} from '../shared/store/api-client-repository.js';
import { type ArchivedIds, archivedIds, NO_ARCHIVED_IDS, visibleIds } from '../shared/store/archive.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';

/** APIClientV2; archived roles and policies are not shown, policies only for RESTRICTED clients. */
const presentClient = (client: ApiClientRecord, archived: ArchivedIds = NO_ARCHIVED_IDS) => ({
  id: client.id,
  clientSecret: client.clientSecret,
  name: client.name,
  roles: visibleIds(client.roles, archived.roles),
  clientType: client.clientType,
  policies: client.clientType === 'RESTRICTED' ? visibleIds(client.policies, archived.policies) : [],
  organizationId: client.organizationId,
  createdBy: client.createdBy,
  createdDate: client.createdDate,
  lastModifiedBy: client.lastModifiedBy,
  lastModifiedDate: client.lastModifiedDate,
});

/** Everything a client registered but its secret (APIClientDetails). */
const presentDetails = (client: ApiClientRecord, archived: ArchivedIds) => {
  const { clientSecret: _secret, ...shown } = presentClient(client, archived);
  return {
    ...shown,
    flowType: client.flowType,
    redirectUris: client.redirectUris,
    postLogoutRedirectUris: client.postLogoutRedirectUris,
    ...(client.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: client.tokenEndpointAuthMethod } : {}),
    ...(client.flowType === 'authorization_code'
      ? {
          idTokenSignedResponseAlg: idTokenSigningAlgorithm(client),
          requirePushedAuthorizationRequests: client.requirePushedAuthorizationRequests === true,
        }
      : {}),
    remoteAddresses: client.remoteAddresses,
    ...(client.jwks ? { jwks: client.jwks } : {}),
  };
};

/** API clients (spec 4.5 and, beyond it, registration, changes, rotation, deletion). */
const clientHandlers: GroupHandlers<typeof clientsRoutes> = {
  listApiClients: async ({ query }, { principal }) => {
    const [{ clients, hasMore, nextAfter }, archived] = await Promise.all([
      listApiClients(principal.organizationId, query.page, query.pageSize, query.after),
      archivedIds(principal.organizationId),
    ]);
    return {
      body: clients.map((client) => ({
        ...presentClient(client, archived),
        ...(clientSecretShownTo(principal, client) ? {} : { clientSecret: '' }),
      })),
      ...(hasMore ? { headers: nextPageLink(clientsRoutes.listApiClients, query, nextAfter) } : {}),
    };
  },

  listApiClientNames: async ({ query }, { principal }) => {
    const { clients, hasMore, nextAfter } = await listApiClients(
      principal.organizationId,
      query.page,
      query.pageSize,
      query.after,
    );
    return {
      body: clients.map((client) => ({ id: client.id, name: client.name })),
      ...(hasMore ? { headers: nextPageLink(clientsRoutes.listApiClientNames, query, nextAfter) } : {}),
    };
  },

  getApiClient: async ({ path }, { principal }) => {
    const [client, archived] = await Promise.all([
      getApiClient(path.id),
      archivedIds(principal.organizationId),
    ]);
    if (client?.organizationId !== principal.organizationId) throw new NotFound('API client', path.id);
    return { body: presentDetails(client, archived) };
  },

  updateApiClient: async ({ path, body }, { principal }) => {
    // Where a client's sign-ins go is the client's: the caller must be able to give what it holds.
    await clientWithinCaller(principal, path.id, 'Changing this client');
    const [client, archived] = await Promise.all([
      changeApiClient(principal.organizationId, path.id, body, principal.id),
      archivedIds(principal.organizationId),
    ]);
    return { body: presentDetails(client, archived) };
  },

  createApiClient: async ({ body }, { principal }) => {
    requireUserTypeWithinCaller(principal, undefined, body.clientType);
    requirePoliciesWithinCaller(principal, body.policies, "This client's policies");
    await requireRolesWithinCaller(principal, { roleIds: body.roles }, "This client's roles");
    if (body.flowType === 'authorization_code')
      await requireApplicationWithinCaller(principal, 'Registering an application');
    const client = await createApiClient({
      organizationId: principal.organizationId,
      ...body,
      createdBy: principal.id,
    });
    return {
      body: presentClient(client),
      headers: { location: routeUrl(clientsRoutes.getApiClient, { id: client.id }) },
    };
  },

  rotateApiClientSecret: async ({ path }, { principal }) => {
    // A new secret makes the caller that client: it may hold nothing the caller lacks.
    await clientWithinCaller(principal, path.id, "Replacing this client's secret");
    const [client, archived] = await Promise.all([
      rotateClientSecret(principal.organizationId, path.id, principal.id),
      archivedIds(principal.organizationId),
    ]);
    return { body: presentClient(client, archived) };
  },

  deleteApiClient: async ({ path }, { principal }) => {
    await clientWithinCaller(principal, path.id, 'Deleting this client');
    await deleteApiClient(principal.organizationId, path.id, principal.id);
    return {};
  },
};

/**
 * An application people sign in through (authorization_code) hands out the tokens of whoever signs
 * in, administrators too: whoever registers one, changes where its codes go or holds its secret
 * has their access. So only a STANDARD caller holding every permission may.
 */
const requireApplicationWithinCaller = async (principal: Principal, what: string) => {
  requireTargetTypeWithinCaller(principal, 'STANDARD');
  await requirePermissionsWithinCaller(principal, ALL_PERMISSION_IDS, what);
};

/**
 * A client of the organization may hold nothing the caller lacks, be of no type the caller could
 * not make, and, for an application, the caller must hold all a person signing in may; another
 * organization's is left to the change (404). A client acting on itself gives itself nothing.
 */
const clientWithinCaller = async (principal: Principal, clientId: string, what: string) => {
  const client = await getApiClient(clientId);
  if (client?.organizationId !== principal.organizationId) return;
  if (client.flowType === 'authorization_code') return requireApplicationWithinCaller(principal, what);
  if (!(principal.type === 'client' && principal.id === client.id))
    requireTargetTypeWithinCaller(principal, client.clientType);
  if (client.clientType === 'RESTRICTED') requirePoliciesWithinCaller(principal, client.policies, what);
  await requireRolesWithinCaller(principal, { roleIds: client.roles }, what);
};

/** A replayed registration or rotation shows the secret it issued, as long as it is still the client's. */
const rereadClientSecret: SecretRereader = async (recorded, { principal }) => {
  const secret = await secretIssuedAt(
    principal.organizationId,
    String(recorded.id),
    recorded.lastModifiedDate,
  );
  if (secret === undefined) {
    throw new Conflict(
      'API client',
      'The secret this request issued has since been replaced or deleted; it cannot be shown again',
    );
  }
  return secret;
};

export const handler = groupHandler(clientsRoutes, clientHandlers, {
  admission,
  registeredOrigin: isRegisteredOrigin,
  idempotency,
  secretRereaders: { createApiClient: rereadClientSecret, rotateApiClientSecret: rereadClientSecret },
});
