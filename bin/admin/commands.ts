import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { rotateSigningKeys } from '../../shared/auth/signing-keys.js';
import { ALL_PERMISSION_IDS } from '../../shared/domain/permission-catalogue.js';
import { badRequest, notFound } from '../../shared/http/errors.js';
import { dependentPermissions, pluginPermissionDefinition } from '../../shared/schemas/catalogue.js';
import { clientType, createApiClientRequest } from '../../shared/schemas/clients.js';
import { identifier } from '../../shared/schemas/common.js';
import { ssoClientId, ssoClientSecret } from '../../shared/schemas/sso.js';
import {
  createApiClient,
  deleteApiClient,
  getApiClient,
  rotateClientSecret,
} from '../../shared/store/api-client-repository.js';
import { batchGet } from '../../shared/store/batch.js';
import {
  defineManagedRole,
  listManagedRoles,
  listPermissions,
} from '../../shared/store/catalogue-repository.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { keys } from '../../shared/store/keys.js';
import {
  createOrganization,
  getOrganization,
  listOrganizations,
} from '../../shared/store/organization-repository.js';
import { assignPlugin, definePlugin } from '../../shared/store/plugin-repository.js';
import { configureSsoProvider, listAllSsoProviders } from '../../shared/store/sso-provider-repository.js';
import { roleHoldingExactly } from './client-role.js';
import { commaList, integer, type Options, optional, required, validated } from './options.js';
import { UsageError } from './target.js';

/** `createdBy` of what the CLI writes. */
export const OPERATOR = 'idp-admin';

export interface CommandResult {
  /** Printed with `--json`. */
  json: unknown;
  /** Printed otherwise: a few readable lines. */
  summary: string;
}

export interface Command {
  usage: string;
  /** The options it takes besides the global ones. */
  options: readonly string[];
  run(options: Options, io: { readStdin(): Promise<string> }): Promise<CommandResult>;
}

const organizationName = z.string().trim().min(1).max(200);
const agreementUrl = z.url({ protocol: /^https?$/ }).max(2048);
const pluginDefinitionsFile = z.strictObject({
  permissionDefinitions: z.array(pluginPermissionDefinition).min(1),
  dependentPermissions: z.array(dependentPermissions).default([]),
});

/** `--permissions A,B` or `--all-permissions`, never both. */
const permissionsOption = (options: Options): string[] => {
  if (options['all-permissions'] && options.permissions !== undefined) {
    throw new UsageError('give --permissions or --all-permissions, not both');
  }
  return options['all-permissions'] ? [...ALL_PERMISSION_IDS] : commaList(optional(options, 'permissions'));
};

const requireOrganization = async (orgId: string) => {
  const organization = await getOrganization(orgId);
  if (!organization) throw notFound(`Organization ${orgId}`);
  return organization;
};

const liveClient = async (options: Options) => {
  const clientId = validated(identifier, required(options, 'id'), 'id');
  const client = await getApiClient(clientId);
  if (!client) throw notFound(`API client ${clientId}`);
  return client;
};

const lines = (...entries: (string | false | undefined)[]) => entries.filter(Boolean).join('\n');

export const COMMANDS: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME [--id ID] [--mfa] [--rate R --burst B]',
    options: ['name', 'id', 'mfa', 'rate', 'burst'],
    run: async (options) => {
      const rate = integer(options, 'rate', 1);
      const burst = integer(options, 'burst', 0);
      if ((rate === undefined) !== (burst === undefined))
        throw new UsageError('give --rate and --burst together');
      const now = Date.now();
      const organization = {
        id: validated(identifier, optional(options, 'id') ?? randomUUID(), 'id'),
        name: validated(organizationName, required(options, 'name'), 'name'),
        createdAt: now,
        updatedAt: now,
        createdBy: OPERATOR,
        mfaEnabled: options.mfa === true,
        ...(rate !== undefined && burst !== undefined ? { rateLimit: { rate, burst } } : {}),
      };
      if (!(await createOrganization(organization))) {
        throw badRequest(`Organization ${organization.id} already exists`);
      }
      return {
        json: organization,
        summary: lines(
          `Created organization ${organization.id} (${organization.name})`,
          `  MFA ${organization.mfaEnabled ? 'on' : 'off'}; ${rate ?? 10} requests/s + burst ${burst ?? 10}`,
        ),
      };
    },
  },

  'org list': {
    usage: 'org list',
    options: [],
    run: async () => {
      const organizations = await listOrganizations();
      return {
        json: organizations,
        summary: lines(
          `${organizations.length} organization(s)`,
          ...organizations.map((org) => `  ${org.id}  ${org.name}${org.mfaEnabled ? '  (MFA)' : ''}`),
        ),
      };
    },
  },

  'client create': {
    usage:
      'client create --org ORG --name NAME [--type STANDARD|RESTRICTED] [--roles R1,R2] [--policies P1,P2] ' +
      '[--permissions USER.LIST,ROLES.ADD | --all-permissions]',
    options: ['org', 'name', 'type', 'roles', 'policies', 'permissions', 'all-permissions'],
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const { shape } = createApiClientRequest;
      const request = {
        name: validated(shape.name, required(options, 'name'), 'name'),
        clientType: validated(clientType, optional(options, 'type') ?? 'STANDARD', 'type'),
        roles: validated(shape.roles, commaList(optional(options, 'roles')), 'roles'),
        policies: validated(shape.policies, commaList(optional(options, 'policies')), 'policies'),
      };
      if (request.clientType === 'STANDARD' && request.policies.length > 0) {
        throw new UsageError('--policies needs --type RESTRICTED');
      }
      const permissions = permissionsOption(options);
      await requireOrganization(orgId);
      const granted =
        permissions.length > 0 ? await roleHoldingExactly(orgId, permissions, OPERATOR) : undefined;
      const client = await createApiClient({
        organizationId: orgId,
        ...request,
        roles: [...request.roles, ...(granted ? [granted.role.id] : [])],
        createdBy: OPERATOR,
      });
      const { id, clientSecret, name, clientType: type, roles, policies } = client;
      return {
        json: { id, clientSecret, name, organizationId: orgId, clientType: type, roles, policies },
        summary: lines(
          `Created API client ${client.name} in organization ${orgId}`,
          `  client_id:     ${client.id}`,
          `  client_secret: ${client.clientSecret}`,
          `  roles:         ${client.roles.join(', ') || '(none)'}`,
          granted &&
            `  ${granted.created ? 'created' : 'reused'} role ${granted.role.name} with ${granted.role.permissions.length} permission(s)`,
        ),
      };
    },
  },

  'client rotate': {
    usage: 'client rotate --id CLIENT_ID [--grace-seconds S]',
    options: ['id', 'grace-seconds'],
    run: async (options) => {
      const client = await liveClient(options);
      const graceSeconds =
        integer(options, 'grace-seconds', 0) ?? Number(process.env.IDP_CLIENT_SECRET_GRACE_SECONDS ?? 86_400);
      const rotated = await rotateClientSecret(
        client.organizationId,
        client.id,
        OPERATOR,
        graceSeconds * 1000,
      );
      const previousValidUntil = new Date(Date.now() + graceSeconds * 1000).toISOString();
      return {
        json: {
          id: rotated.id,
          clientSecret: rotated.clientSecret,
          previousSecretValidUntil: previousValidUntil,
        },
        summary: lines(
          `Rotated the secret of API client ${rotated.id}`,
          `  client_secret: ${rotated.clientSecret}`,
          `  the previous secret works until ${previousValidUntil}`,
        ),
      };
    },
  },

  'client delete': {
    usage: 'client delete --id CLIENT_ID',
    options: ['id'],
    run: async (options) => {
      const client = await liveClient(options);
      await deleteApiClient(client.organizationId, client.id, OPERATOR);
      return {
        json: { id: client.id, organizationId: client.organizationId, deleted: true },
        summary: `Deleted API client ${client.id} of organization ${client.organizationId}`,
      };
    },
  },

  'plugin define': {
    usage: 'plugin define --id PLUGIN_ID --definitions FILE.json',
    options: ['id', 'definitions'],
    run: async (options) => {
      const id = validated(identifier, required(options, 'id'), 'id');
      const file = required(options, 'definitions');
      const text = await readFile(file, 'utf8').catch((error: Error) => {
        throw new UsageError(`--definitions: cannot read ${file} (${error.message})`);
      });
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new UsageError(`--definitions: ${file} is not JSON (${(error as Error).message})`);
      }
      const definitions = validated(pluginDefinitionsFile, parsed, 'definitions');
      await definePlugin({ id, ...definitions });
      return {
        json: { id, ...definitions },
        summary: `Defined plugin ${id} with ${definitions.permissionDefinitions.length} permission definition(s)`,
      };
    },
  },

  'plugin assign': {
    usage: 'plugin assign --org ORG --plugin PLUGIN_ID',
    options: ['org', 'plugin'],
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const pluginId = validated(identifier, required(options, 'plugin'), 'plugin');
      const [organization, plugin] = await Promise.all([
        requireOrganization(orgId),
        batchGet([keys.pluginDefinition(pluginId)]),
      ]);
      if (plugin.length === 0) throw notFound(`Plugin ${pluginId}`);
      await assignPlugin(organization.id, pluginId);
      return {
        json: { organizationId: orgId, pluginId },
        summary: `Assigned plugin ${pluginId} to organization ${orgId}`,
      };
    },
  },

  'agreement publish': {
    usage: 'agreement publish --url URL',
    options: ['url'],
    run: async (options) => {
      const agreement = await publishAgreement(validated(agreementUrl, required(options, 'url'), 'url'));
      return {
        json: agreement,
        summary: `Published agreement ${agreement.id} (${agreement.url}); it is now the latest`,
      };
    },
  },

  'sso create': {
    usage: 'sso create --client-id CLIENT_ID --orgs ORG1,ORG2 --secret-stdin [--expires EPOCH_MS]',
    options: ['client-id', 'orgs', 'secret-stdin', 'expires'],
    run: async (options, io) => {
      const clientId = validated(ssoClientId, required(options, 'client-id'), 'client-id');
      const organizationIds = commaList(required(options, 'orgs')).map((org) =>
        validated(identifier, org, 'orgs'),
      );
      const expires = integer(options, 'expires', 0);
      // Secrets never come from the command line, where shell history and `ps` would show them.
      const clientSecret = options['secret-stdin']
        ? validated(ssoClientSecret, (await io.readStdin()).replace(/\r?\n$/, ''), 'secret-stdin')
        : undefined;
      const provider = await configureSsoProvider(
        { clientId, organizationIds, clientSecret, clientSecretExpirationDate: expires },
        OPERATOR,
      );
      return {
        json: {
          clientId: provider.clientId,
          organizationIds: provider.organizationIds,
          clientSecretExpirationDate: provider.clientSecretExpirationDate,
        },
        summary: lines(
          `SSO provider ${clientId} serves ${provider.organizationIds.join(', ')}`,
          clientSecret !== undefined ? '  client secret stored' : '  client secret unchanged',
        ),
      };
    },
  },

  'sso list': {
    usage: 'sso list',
    options: [],
    run: async () => {
      const providers = (await listAllSsoProviders()).map(
        ({ clientId, organizationIds, clientSecretExpirationDate }) => ({
          clientId,
          organizationIds,
          clientSecretExpirationDate,
        }),
      );
      return {
        json: providers,
        summary: lines(
          `${providers.length} SSO provider(s)`,
          ...providers.map((p) => `  ${p.clientId}  -> ${p.organizationIds.join(', ')}`),
        ),
      };
    },
  },

  'permissions list': {
    usage: 'permissions list',
    options: [],
    run: async () => {
      const permissions = await listPermissions();
      return {
        json: permissions.map(({ id, moduleDisplayName, accessTypeDisplayName, dependsOn }) => ({
          id,
          moduleDisplayName,
          accessTypeDisplayName,
          dependsOn: dependsOn ?? [],
        })),
        summary: permissions
          .map((p) => `${p.id.padEnd(32)} ${p.moduleDisplayName}: ${p.accessTypeDisplayName}`)
          .join('\n'),
      };
    },
  },

  'managed-role define': {
    usage: 'managed-role define --id ID (--permissions A,B | --all-permissions)',
    options: ['id', 'permissions', 'all-permissions'],
    run: async (options) => {
      const id = validated(identifier, required(options, 'id'), 'id');
      const permissions = permissionsOption(options);
      if (permissions.length === 0) throw new UsageError('--permissions or --all-permissions is required');
      const role = await defineManagedRole(id, permissions);
      return {
        json: role,
        summary: `Defined managed role ${id} with ${role.permissions.length} permission(s)`,
      };
    },
  },

  'managed-role list': {
    usage: 'managed-role list',
    options: [],
    run: async () => {
      const roles = await listManagedRoles();
      return {
        json: roles,
        summary: roles
          .map((role) => `${role.id.padEnd(24)} ${role.permissions.length} permission(s)`)
          .join('\n'),
      };
    },
  },

  'signing-keys rotate': {
    usage: 'signing-keys rotate [--retain-seconds S]',
    options: ['retain-seconds'],
    run: async (options) => {
      const retainSeconds =
        integer(options, 'retain-seconds', 0) ?? Number(process.env.IDP_TOKEN_TTL_SECONDS ?? 3600);
      const kid = await rotateSigningKeys(retainSeconds * 1000);
      return {
        json: { kid, previousKeyPublishedForSeconds: retainSeconds },
        summary: `New signing key ${kid}; the previous key stays in the JWKS for ${retainSeconds} s after tokens stop using it`,
      };
    },
  },
};
