import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { ApiError } from '../../shared/http/errors.js';
import { createApiClient, getApiClient, updateApiClient } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { createOrganization } from '../../shared/store/organization-repository.js';
import { createRole, setRolePermissions } from '../../shared/store/role-repository.js';

export interface BootstrapResult {
  organizationId: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The administrator role holds every permission, refreshed on every start so that it also holds
 * permissions added since; recreated when it was archived through the API.
 */
const refreshAdministratorRole = async (organizationId: string, roleId: string | undefined) => {
  if (roleId) {
    try {
      await setRolePermissions(organizationId, roleId, ALL_PERMISSION_IDS);
      return roleId;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
  const create = (name: string) =>
    createRole({ organizationId, name, permissions: ALL_PERMISSION_IDS, createdBy: 'bootstrap' });
  // Someone may have given another role the name meanwhile.
  const role = await create('Administrator').catch((error) =>
    error instanceof ApiError && error.status === 409
      ? create(`Administrator ${randomUUID().slice(0, 8)}`)
      : Promise.reject(error),
  );
  return role.id;
};

/** The administrator client: created once, its secret and role set right on every start. */
const ensureAdministratorClient = async (
  organizationId: string,
  adminRoleId: string,
  clientId: string,
  requestedSecret: string | undefined,
): Promise<string> => {
  const existing = await getApiClient(clientId);
  if (!existing) {
    const created = await createApiClient({
      id: clientId,
      ...(requestedSecret ? { clientSecret: requestedSecret } : {}),
      organizationId,
      name: 'Local administrator',
      clientType: 'STANDARD',
      roles: [adminRoleId],
      policies: [],
      createdBy: 'bootstrap',
    });
    return created.clientSecret;
  }
  if (existing.organizationId !== organizationId) {
    throw new Error(`Client ${clientId} belongs to another organization; choose another IDP_ADMIN_CLIENT_ID`);
  }
  const secretChanged = requestedSecret !== undefined && requestedSecret !== existing.clientSecret;
  if (secretChanged || !existing.roles.includes(adminRoleId)) {
    await updateApiClient(
      organizationId,
      clientId,
      { ...(secretChanged ? { clientSecret: requestedSecret } : {}), roles: [adminRoleId] },
      'bootstrap',
    );
  }
  return requestedSecret ?? existing.clientSecret;
};

/**
 * Seeds the system data and makes sure a default organization and an administrator API client
 * exist. Idempotent: a restart on the same data reuses both (and their credentials), unless
 * `IDP_ADMIN_CLIENT_ID`/`IDP_ADMIN_CLIENT_SECRET` ask for specific credentials.
 */
export const bootstrapLocal = async (
  requested: { clientId?: string; clientSecret?: string } = {},
  now = Date.now(),
): Promise<BootstrapResult> => {
  await seedSystemData(now);
  const { Item: pointer } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.localBootstrap(), ConsistentRead: true }),
  );
  const organizationId = String(pointer?.organizationId ?? randomUUID());
  await createOrganization({
    id: organizationId,
    name: 'Default organization',
    createdAt: now,
    updatedAt: now,
    createdBy: 'bootstrap',
    mfaEnabled: false,
  });
  const adminRoleId = await refreshAdministratorRole(
    organizationId,
    pointer?.adminRoleId as string | undefined,
  );

  const clientId = requested.clientId ?? String(pointer?.clientId ?? randomUUID());
  const clientSecret = await ensureAdministratorClient(
    organizationId,
    adminRoleId,
    clientId,
    requested.clientSecret,
  );
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.localBootstrap(),
        organizationId,
        adminRoleId,
        clientId,
        createdAt: Number(pointer?.createdAt ?? now),
      },
    }),
  );
  return { organizationId, clientId, clientSecret };
};
