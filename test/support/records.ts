import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditRecord } from '../../shared/audit/record.js';
import { withDependencies } from '../../shared/domain/effective-permissions.js';
import {
  ALL_PERMISSION_IDS,
  PERMISSION_CATALOGUE,
  type PermissionId,
} from '../../shared/domain/permission-catalogue.js';
import { createApiClient } from '../../shared/store/api-client-repository.js';
import { queryAuditRecords } from '../../shared/store/audit-records.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { type ItemKey, keys } from '../../shared/store/keys.js';
import { createOrganization, type Organization } from '../../shared/store/organization-repository.js';
import { definePlugin } from '../../shared/store/plugin-repository.js';
import { archivePolicy, createPolicy } from '../../shared/store/policy-repository.js';
import { archiveRole, createRole } from '../../shared/store/role-repository.js';
import { createUserGroup } from '../../shared/store/user-group-repository.js';

/**
 * Data written (and read) straight through the store modules, the way operator tooling and other
 * modules write it: for what the API cannot create, and for int tests that run no service.
 */

/** Functional tests send bursts; they run with a limit no test reaches unless it asks for one. */
export const UNLIMITED = { rate: 100_000, burst: 0 };

export const shortId = () => randomUUID().slice(0, 8);

export const uniqueEmail = (label = 'user') => `${label}-${shortId()}@example.com`;

/** A new organization, written the way the operator tooling writes it. */
export const createTestOrganization = async (
  overrides: Partial<Organization> = {},
): Promise<Organization> => {
  const now = Date.now();
  const organization: Organization = {
    id: randomUUID(),
    name: `Org ${shortId()}`,
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
    name: `role-${shortId()}`,
    permissions,
    createdBy: 'test',
  });
  const { id: clientId, clientSecret } = await createApiClient({
    organizationId,
    name: options.name ?? `client-${shortId()}`,
    clientType: options.clientType ?? 'STANDARD',
    roles: [roleId],
    policies: [],
    createdBy: 'test',
  });
  return { clientId, clientSecret, roleId };
};

/** An authorization-code application people sign in to, written in the store (confidential by default). */
export const createTestApplication = (
  organizationId: string,
  options: {
    redirectUris: string[];
    postLogoutRedirectUris?: string[];
    tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
    name?: string;
  },
) =>
  createApiClient({
    organizationId,
    name: options.name ?? 'App',
    clientType: 'STANDARD',
    roles: [],
    policies: [],
    createdBy: 'test',
    flowType: 'authorization_code',
    redirectUris: options.redirectUris,
    ...(options.postLogoutRedirectUris ? { postLogoutRedirectUris: options.postLogoutRedirectUris } : {}),
    ...(options.tokenEndpointAuthMethod ? { tokenEndpointAuthMethod: options.tokenEndpointAuthMethod } : {}),
  });

const dependencies = new Map(PERMISSION_CATALOGUE.map((p) => [p.id as string, p.dependsOn as string[]]));

/** Every catalogue permission that neither is nor (transitively) implies one of `excluded`. */
export const permissionsWithout = (...excluded: PermissionId[]): PermissionId[] =>
  ALL_PERMISSION_IDS.filter((id) => {
    const implied = withDependencies([id], dependencies);
    return excluded.every((permission) => !implied.has(permission));
  });

export const getItem = async (key: ItemKey): Promise<Record<string, unknown> | undefined> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

/**
 * Every stored audit item of the organization (each record and its target copies, with every
 * attribute), as one text: to show that no secret reached any of them, under whatever name.
 */
export const storedAuditText = async (orgId: string): Promise<string> => {
  const records: AuditRecord[] = [];
  let before: string | undefined;
  do {
    const page = await queryAuditRecords(orgId, {}, { limit: 1000, ...(before ? { before } : {}) });
    records.push(...page.records);
    before = page.before;
  } while (before);
  const items = await Promise.all(
    records.flatMap((record) => [
      getItem(keys.auditRecord(orgId, record.id)),
      ...record.targets
        .slice(1)
        .map((_, index) => getItem(keys.auditTargetCopy(orgId, record.id, index + 1))),
    ]),
  );
  return JSON.stringify(items);
};

const update = (Key: ItemKey, UpdateExpression: string, values: Record<string, unknown>, names?: object) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key,
      UpdateExpression,
      ExpressionAttributeValues: values,
      ...(names ? { ExpressionAttributeNames: names as Record<string, string> } : {}),
    }),
  );

/**
 * A role written by the roles module itself; `pluginPermissions` (pluginId -> action names) is
 * stored as grants of definitions named after their actions, without a plugin definition.
 */
export const putTestRole = async (
  orgId: string,
  options: {
    name?: string;
    permissions?: string[];
    pluginPermissions?: Record<string, string[]>;
    archived?: boolean;
  } = {},
): Promise<{ id: string; name: string }> => {
  const role = await createRole({
    organizationId: orgId,
    name: options.name ?? `Role ${shortId()}`,
    permissions: options.permissions ?? [],
    createdBy: 'test',
  });
  if (options.pluginPermissions) {
    const grants = Object.entries(options.pluginPermissions).map(([pluginId, actions]) => [
      pluginId,
      actions.map((actionName) => ({ id: actionName, module: 'TEST', actionName })),
    ]);
    // Granted actions count only while their plugin defines them (grant-resolution.ts).
    for (const [pluginId, actions] of grants as [
      string,
      { id: string; module: string; actionName: string }[],
    ][])
      await definePlugin({
        id: pluginId,
        permissionDefinitions: actions.map((action) => ({ ...action, description: action.actionName })),
        dependentPermissions: [],
      });
    await update(keys.role(orgId, role.id), 'SET pluginPermissions = :grants', {
      ':grants': Object.fromEntries(grants),
    });
  }
  if (options.archived) await archiveRole(orgId, role.id);
  return { id: role.id, name: role.name };
};

export const putTestPolicy = async (
  orgId: string,
  options: { name?: string; archived?: boolean } = {},
): Promise<string> => {
  const policy = await createPolicy({
    organizationId: orgId,
    name: options.name ?? `Policy ${shortId()}`,
    createdBy: 'test',
  });
  if (options.archived) await archivePolicy(orgId, policy.id);
  return policy.id;
};

/** A user group created by the groups module, with the given grants added to its sets. */
export const putTestUserGroup = async (
  orgId: string,
  options: {
    name?: string;
    status?: 'ACTIVE' | 'INACTIVE';
    roles?: string[];
    managedRoles?: string[];
    policies?: string[];
  } = {},
): Promise<string> => {
  const group = await createUserGroup({
    organizationId: orgId,
    name: options.name ?? `Group ${shortId()}`,
    status: options.status ?? 'ACTIVE',
    createdBy: 'test',
  });
  // DynamoDB stores no empty sets.
  const grants = (['roles', 'managedRoles', 'policies'] as const).filter(
    (field) => (options[field]?.length ?? 0) > 0,
  );
  if (grants.length > 0) {
    await update(
      keys.userGroup(orgId, group.id),
      `SET ${grants.map((field) => `#${field} = :${field}`).join(', ')}`,
      Object.fromEntries(grants.map((field) => [`:${field}`, new Set(options[field])])),
      Object.fromEntries(grants.map((field) => [`#${field}`, field])),
    );
  }
  return group.id;
};

export const setDefaultRole = (orgId: string, roleId: string, isStandardRole: boolean) =>
  update(keys.organization(orgId), 'SET defaultRole = :role', { ':role': { roleId, isStandardRole } });

export const setMfaEnabled = (orgId: string, enabled: boolean) =>
  update(keys.organization(orgId), 'SET mfaEnabled = :enabled', { ':enabled': enabled });

export interface OutboxLine {
  type: string;
  organizationId: string;
  userId: string;
  to: string;
  name: string;
  createdAt: number;
}

/** The local outbox (JSONL) the service appends join emails to. */
export const readOutbox = (): OutboxLine[] => {
  const file = process.env.IDP_OUTBOX_FILE;
  if (!file) throw new Error('IDP_OUTBOX_FILE is not set; start the test service first');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as OutboxLine);
};
