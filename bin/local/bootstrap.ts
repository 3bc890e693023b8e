import { randomUUID } from 'node:crypto';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { createApiClient, getApiClient, updateApiClient } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { defineEntity } from '../../shared/store/entity.js';
import { keys } from '../../shared/store/keys.js';
import { createOrganization } from '../../shared/store/organization-repository.js';
import { createRole, setRolePermissions } from '../../shared/store/role-repository.js';
import { put, writeOne } from '../../shared/store/writes.js';
import * as z from '../../shared/zod.js';

/** Which organization and admin client `npm start` made, so a restart reuses them. */
export const LocalBootstrapEntity = defineEntity({
  name: 'Local bootstrap',
  key: (_ref: Record<string, never>) => keys.localBootstrap(),
  attributes: () =>
    z.object({
      organizationId: z.string(),
      adminRoleId: z.optional(z.string()),
      clientId: z.string(),
      createdAt: z.number(),
    }),
});

export interface BootstrapResult {
  organizationId: string;
  /** The role holding every permission. */
  adminRoleId: string;
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
      if (!(error instanceof NotFound)) throw error;
    }
  }
  const create = (name: string) =>
    createRole({ organizationId, name, permissions: ALL_PERMISSION_IDS, createdBy: 'bootstrap' });
  // Someone may have given another role the name meanwhile.
  const role = await create('Administrator').catch((error) =>
    error instanceof Conflict ? create(`Administrator ${randomUUID().slice(0, 8)}`) : Promise.reject(error),
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
  const pointer = await LocalBootstrapEntity.get({});
  const organizationId = pointer?.organizationId ?? randomUUID();
  await createOrganization({
    id: organizationId,
    name: 'Default organization',
    createdAt: now,
    updatedAt: now,
    createdBy: 'bootstrap',
    mfaEnabled: false,
  });
  const adminRoleId = await refreshAdministratorRole(organizationId, pointer?.adminRoleId);

  const clientId = requested.clientId ?? pointer?.clientId ?? randomUUID();
  const clientSecret = await ensureAdministratorClient(
    organizationId,
    adminRoleId,
    clientId,
    requested.clientSecret,
  );
  await writeOne(
    put(
      LocalBootstrapEntity.item(
        {},
        { organizationId, adminRoleId, clientId, createdAt: pointer?.createdAt ?? now },
      ),
    ),
  );
  return { organizationId, adminRoleId, clientId, clientSecret };
};
