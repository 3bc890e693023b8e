import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { withDependencies } from '../../shared/domain/effective-permissions.js';
import {
  ALL_PERMISSION_IDS,
  PERMISSION_CATALOGUE,
  type PermissionId,
} from '../../shared/domain/permission-catalogue.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { type ItemKey, keys } from '../../shared/store/keys.js';
import { archivePolicy, createPolicy } from '../../shared/store/policy-repository.js';
import { archiveRole, createRole } from '../../shared/store/role-repository.js';
import { createUserGroup } from '../../shared/store/user-group-repository.js';
import { createTestClient, createTestOrganization } from './fixtures.js';
import { OpenApiValidator } from './openapi-validator.js';
import type { ApiResponse, TestService } from './test-service.js';

/** The User shape of the API (spec section 2). */
export interface ApiUser {
  id: string;
  email: string;
  name: string;
  picture: string | null;
  policies: string[];
  roles: string[];
  managedRoles: string[];
  canSendEmail: boolean;
  isInitial: boolean;
  userGroups: string[] | null;
}

export interface ApiError {
  status: number;
  error: string;
  message: string;
  errorDetails?: { message: string; field?: string; rejectedValue?: unknown }[];
  requestId: string;
  timestamp: number;
}

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.com`;

/** The fields of a user the API shows right after creation (no grants, no picture). */
export const freshUser = (id: string, email: string, name: string, isInitial = false): ApiUser => ({
  id,
  email,
  name,
  picture: null,
  policies: [],
  roles: [],
  managedRoles: [],
  canSendEmail: true,
  isInitial,
  userGroups: [],
});

/** The field names of a 400 answer's errorDetails. */
export const errorFields = (response: ApiResponse<unknown>) =>
  ((response.body as ApiError).errorDetails ?? []).map((detail) => detail.field);

export const getItem = async (key: ItemKey): Promise<Record<string, unknown> | undefined> =>
  (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;

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
    name: options.name ?? `Role ${randomUUID().slice(0, 8)}`,
    permissions: options.permissions ?? [],
    createdBy: 'test',
  });
  if (options.pluginPermissions) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.role(orgId, role.id),
        UpdateExpression: 'SET pluginPermissions = :grants',
        ExpressionAttributeValues: {
          ':grants': Object.fromEntries(
            Object.entries(options.pluginPermissions).map(([pluginId, actions]) => [
              pluginId,
              actions.map((actionName) => ({ id: actionName, module: 'TEST', actionName })),
            ]),
          ),
        },
      }),
    );
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
    name: options.name ?? `Policy ${randomUUID().slice(0, 8)}`,
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
    name: options.name ?? `Group ${randomUUID().slice(0, 8)}`,
    status: options.status ?? 'ACTIVE',
    createdBy: 'test',
  });
  // DynamoDB stores no empty sets.
  const grants = (['roles', 'managedRoles', 'policies'] as const).filter(
    (field) => (options[field]?.length ?? 0) > 0,
  );
  if (grants.length > 0) {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.userGroup(orgId, group.id),
        UpdateExpression: `SET ${grants.map((field) => `#${field} = :${field}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(grants.map((field) => [`#${field}`, field])),
        ExpressionAttributeValues: Object.fromEntries(
          grants.map((field) => [`:${field}`, new Set(options[field])]),
        ),
      }),
    );
  }
  return group.id;
};

const updateOrganization = (orgId: string, expression: string, values: Record<string, unknown>) =>
  db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(orgId),
      UpdateExpression: expression,
      ExpressionAttributeValues: values,
    }),
  );

export const setDefaultRole = (orgId: string, roleId: string, isStandardRole: boolean) =>
  updateOrganization(orgId, 'SET defaultRole = :role', { ':role': { roleId, isStandardRole } });

export const setMfaEnabled = (orgId: string, enabled: boolean) =>
  updateOrganization(orgId, 'SET mfaEnabled = :enabled', { ':enabled': enabled });

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

const dependencies = new Map(PERMISSION_CATALOGUE.map((p) => [p.id as string, p.dependsOn as string[]]));

/** Every catalogue permission that neither is nor (transitively) implies one of `excluded`. */
export const permissionsWithout = (...excluded: PermissionId[]): PermissionId[] =>
  ALL_PERMISSION_IDS.filter((id) => {
    const implied = withDependencies([id], dependencies);
    return excluded.every((permission) => !implied.has(permission));
  });

/** A client-credentials token of a new client of `orgId` holding exactly `permissions`. */
export const clientToken = async (
  service: TestService,
  orgId: string,
  permissions: readonly PermissionId[],
): Promise<string> => {
  const { clientId, clientSecret } = await createTestClient(orgId, permissions);
  return service.token(clientId, clientSecret);
};

/** Creates a user through the API with `token`; answers its id (from the Location header). */
export const createUserWith = async (
  service: TestService,
  token: string,
  email: string,
  name = 'Test User',
  userType: 'STANDARD' | 'RESTRICTED' = 'STANDARD',
): Promise<string> => {
  const response = await service.call('POST', '/idp/users', { token, body: { email, name, userType } });
  if (response.status !== 204)
    throw new Error(`createUser: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.headers.get('location') as string).split('/').pop() as string;
};

export interface ForeignOrganization {
  orgId: string;
  /** A token of an administrator client of that organization. */
  token: string;
  userId: string;
  email: string;
}

/** A second organization with an admin client and one user created through the API there. */
export const foreignOrganization = async (
  service: TestService,
  options: { mfaEnabled?: boolean } = {},
): Promise<ForeignOrganization> => {
  const organization = await createTestOrganization({ mfaEnabled: options.mfaEnabled ?? false });
  const token = await clientToken(service, organization.id, ALL_PERMISSION_IDS);
  const email = uniqueEmail('foreign');
  const userId = await createUserWith(service, token, email, 'Foreign Person');
  return { orgId: organization.id, token, userId, email };
};

/** Parses `Link: <url>; rel="next"` into the path and query to call. */
export const nextLink = (headers: Headers): string | undefined => {
  const match = /^<([^>]+)>; rel="next"$/.exec(headers.get('link') ?? '');
  if (!match?.[1]) return undefined;
  const url = new URL(match[1]);
  return `${url.pathname}${url.search}`;
};

// Smallest valid headers of the four accepted image types (the service decides by content).
export const PNG = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 1, 2, 3,
]);
export const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 7]);
export const GIF = new TextEncoder().encode('GIF89a\u0001\u0000\u0001\u0000rest');
export const WEBP = Uint8Array.from([
  ...new TextEncoder().encode('RIFF'),
  0x24,
  0,
  0,
  0,
  ...new TextEncoder().encode('WEBPVP8 '),
]);

const validators = new WeakMap<TestService, Promise<OpenApiValidator>>();

/**
 * Uploads a picture as multipart/form-data (fetch with FormData, which `service.call` cannot send)
 * and checks the answer against the OpenAPI document like `service.call` does.
 */
export const uploadPicture = async (
  service: TestService,
  userId: string,
  options: {
    token?: string;
    bytes?: Uint8Array;
    filename?: string;
    type?: string;
    field?: string;
    form?: FormData;
  },
): Promise<ApiResponse<ApiError | undefined>> => {
  let form = options.form;
  if (!form) {
    form = new FormData();
    const bytes = options.bytes ?? PNG;
    form.append(
      options.field ?? 'files',
      new Blob([bytes], { type: options.type ?? 'image/png' }),
      options.filename ?? 'picture.png',
    );
  }
  const url = `${service.baseUrl}/idp/users/${userId}/picture`;
  const response = await fetch(url, {
    method: 'PUT',
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    body: form,
  });
  const text = await response.text();
  const body = text === '' ? undefined : (JSON.parse(text) as ApiError);
  let validator = validators.get(service);
  if (!validator) {
    validator = fetch(`${service.baseUrl}/idp/openapi.json`)
      .then((answer) => answer.json())
      .then((document) => new OpenApiValidator(document as never));
    validators.set(service, validator);
  }
  (await validator).assertResponse('PUT', url, response.status, body);
  return { status: response.status, headers: response.headers, body };
};
