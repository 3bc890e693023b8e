import { randomUUID } from 'node:crypto';
import type { PermissionId } from '../../shared/domain/permission-catalogue.js';
import { createApiClient } from '../../shared/store/api-client-repository.js';
import { createOrganization, type Organization } from '../../shared/store/organization-repository.js';
import { createRole } from '../../shared/store/role-repository.js';
import { UNLIMITED } from './test-service.js';

/** A new organization, written the way the operator tooling writes it. */
export const createTestOrganization = async (
  overrides: Partial<Organization> = {},
): Promise<Organization> => {
  const now = Date.now();
  const organization: Organization = {
    id: randomUUID(),
    name: `Org ${randomUUID().slice(0, 8)}`,
    createdAt: now,
    updatedAt: now,
    mfaEnabled: false,
    rateLimit: UNLIMITED,
    ...overrides,
  };
  await createOrganization(organization);
  return organization;
};

/** An API client of `organizationId` whose single role holds exactly `permissions`. */
export const createTestClient = async (
  organizationId: string,
  permissions: readonly PermissionId[],
  options: { clientType?: 'STANDARD' | 'RESTRICTED'; name?: string } = {},
): Promise<{ clientId: string; clientSecret: string; roleId: string }> => {
  const { id: roleId } = await createRole({
    organizationId,
    name: `role-${randomUUID().slice(0, 8)}`,
    permissions,
    createdBy: 'test',
  });
  const client = await createApiClient({
    organizationId,
    name: options.name ?? `client-${randomUUID().slice(0, 8)}`,
    clientType: options.clientType ?? 'STANDARD',
    roles: [roleId],
    policies: [],
    createdBy: 'test',
  });
  const { id: clientId, clientSecret } = client;
  return { clientId, clientSecret, roleId };
};
