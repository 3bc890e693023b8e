import { randomUUID } from 'node:crypto';
import { storeConfig } from '../../shared/config.js';
import { refuseStandardClientPolicies } from '../../shared/domain/api-client-rules.js';
import { NotFound, PreconditionFailed } from '../../shared/domain/errors.js';
import { DEFAULT_RATE_LIMIT, type RateLimitSettings } from '../../shared/domain/rate-limit.js';
import {
  createApiClientRequest,
  MAX_CLIENT_GRANTS,
  updateApiClientRequest,
} from '../../shared/schemas/clients.js';
import { identifier } from '../../shared/schemas/common.js';
import { organizationName } from '../../shared/schemas/organization.js';
import {
  changeApiClient,
  createApiClient,
  deleteApiClient,
  getApiClient,
  idTokenSigningAlgorithm,
  rotateClientSecret,
} from '../../shared/store/api-client-repository.js';
import {
  createOrganization,
  listOrganizations,
  type Organization,
  updateOrganizationSettings,
} from '../../shared/store/organization-repository.js';
import { requirePolicy } from '../../shared/store/policy-repository.js';
import { requireRole } from '../../shared/store/role-repository.js';
import type * as z from '../../shared/zod.js';
import { roleHoldingExactly } from './client-role.js';
import { type Command, lines, OPERATOR, permissionsOption, requireOrganization } from './command.js';
import {
  commaList,
  integer,
  jsonFileOption,
  type Options,
  optional,
  required,
  switchOption,
  validated,
} from './options.js';
import { UsageError } from './target.js';

/** Requests per second an organization's override may allow (rate and burst each). */
const MAX_RATE = 1_000_000;

/** A rotated-out secret works at most this long after an operator's rotation. */
const MAX_GRACE_SECONDS = 30 * 24 * 3600;

/** Every role and policy named must be live in the organization. */
const requireGrantTargets = (orgId: string, roles: readonly string[], policies: readonly string[]) =>
  Promise.all([
    ...roles.map((id) => requireRole(orgId, id)),
    ...policies.map((id) => requirePolicy(orgId, id)),
  ]);

/**
 * How long running instances of the service may keep an organization's previous rate limit: each
 * caches it for 60 s (SETTINGS_CACHE_MILLIS in shared/http/middleware/rate-limit.ts).
 */
const RATE_LIMIT_CACHE_NOTE =
  'Running instances of the service cache rate-limit settings for 60 s: the new limit applies within a minute.';

/** `--rate R --burst B`, both or neither, with the bounds of an organization's override. */
const rateLimitOption = (options: Options): RateLimitSettings | undefined => {
  const rate = integer(options, 'rate', 1, MAX_RATE);
  const burst = integer(options, 'burst', 0, MAX_RATE);
  if ((rate === undefined) !== (burst === undefined))
    throw new UsageError('give --rate and --burst together');
  return rate !== undefined && burst !== undefined ? { rate, burst } : undefined;
};

/** `MFA on; 10 requests/s + burst 10 (default)`. */
const describeSettings = (organization: Organization) => {
  const { rate, burst } = organization.rateLimit ?? DEFAULT_RATE_LIMIT;
  return `  MFA ${organization.mfaEnabled ? 'on' : 'off'}; ${rate} requests/s + burst ${burst}${organization.rateLimit ? '' : ' (default)'}`;
};

const liveClient = async (options: Options) => {
  const clientId = validated(identifier, required(options, 'id'), 'id');
  const client = await getApiClient(clientId);
  if (!client) throw new NotFound('API client', clientId);
  return client;
};

/** Commands on organizations and what belongs to one: API clients (SSO providers: sso-commands.ts). */
const OPTION_OF_FIELD: Record<string, string> = {
  clientType: 'type',
  flowType: 'flow',
  redirectUris: 'redirect-uris',
  postLogoutRedirectUris: 'post-logout-redirect-uris',
  tokenEndpointAuthMethod: 'auth-method',
  idTokenSignedResponseAlg: 'id-token-alg',
  requirePushedAuthorizationRequests: 'require-par',
  remoteAddresses: 'remote-addresses',
  jwks: 'jwks-file',
};

/** A client registration (or change) checked by the API's schema; a problem names the option it came from. */
const validatedRequest = <S extends typeof createApiClientRequest | typeof updateApiClientRequest>(
  schema: S,
  request: Record<string, unknown>,
): z.output<S> => {
  const defined = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
  const result = schema.safeParse(defined);
  if (result.success) return result.data as z.output<S>;
  const issue = result.error.issues[0];
  const [field, ...rest] = issue?.path ?? [];
  const message = issue?.message ?? 'invalid';
  // A problem of the whole request (a change of nothing) names no option.
  if (field === undefined) throw new UsageError(message);
  const option = OPTION_OF_FIELD[String(field)] ?? String(field);
  throw new UsageError(`--${option}${rest.length > 0 ? ` (${rest.join('.')})` : ''}: ${message}`);
};

export const TENANT_COMMANDS: Record<string, Command> = {
  'org create': {
    usage: 'org create --name NAME [--id ID] [--mfa] [--rate R --burst B]',
    options: ['name', 'id', 'mfa', 'rate', 'burst'],
    run: async (options) => {
      const rateLimit = rateLimitOption(options);
      const now = Date.now();
      const organization = {
        id: validated(identifier, optional(options, 'id') ?? randomUUID(), 'id'),
        name: validated(organizationName, required(options, 'name'), 'name'),
        createdAt: now,
        updatedAt: now,
        createdBy: OPERATOR,
        mfaEnabled: options.mfa === true,
        ...(rateLimit ? { rateLimit } : {}),
      };
      if (!(await createOrganization(organization))) {
        throw new PreconditionFailed(`Organization ${organization.id} already exists`);
      }
      return {
        json: organization,
        summary: lines(
          `Created organization ${organization.id} (${organization.name})`,
          describeSettings(organization),
        ),
      };
    },
  },

  'org update': {
    usage: 'org update --id ORG [--rate R --burst B] [--mfa | --no-mfa]',
    options: ['id', 'rate', 'burst', 'mfa', 'no-mfa'],
    notes: `Changes only what is given. ${RATE_LIMIT_CACHE_NOTE}`,
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'id'), 'id');
      const rateLimit = rateLimitOption(options);
      const mfaEnabled = switchOption(options, 'mfa');
      if (rateLimit === undefined && mfaEnabled === undefined) {
        throw new UsageError('nothing to change: give --rate and --burst, --mfa or --no-mfa');
      }
      const organization = await updateOrganizationSettings(orgId, {
        ...(rateLimit ? { rateLimit } : {}),
        ...(mfaEnabled !== undefined ? { mfaEnabled } : {}),
      }).catch((error: unknown) =>
        Promise.reject(
          error instanceof NotFound
            ? new NotFound('Organization', orgId, [
                { field: 'id', message: 'No organization with this id exists', rejectedValue: orgId },
              ])
            : error,
        ),
      );
      return {
        json: organization,
        summary: lines(
          `Updated organization ${organization.id} (${organization.name})`,
          describeSettings(organization),
          rateLimit && `  ${RATE_LIMIT_CACHE_NOTE}`,
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
      '[--permissions USER.LIST,ROLES.ADD | --all-permissions] [--remote-addresses CIDR1,CIDR2] ' +
      '[--auth-method private_key_jwt --jwks-file JWKS.json] | ' +
      '[--flow authorization_code --redirect-uris URI1,URI2 [--post-logout-redirect-uris URI1] ' +
      '[--auth-method client_secret_basic|client_secret_post|none|private_key_jwt [--jwks-file JWKS.json]] ' +
      '[--id-token-alg RS256|ES256] [--require-par]]',
    options: [
      'org',
      'name',
      'type',
      'roles',
      'policies',
      'permissions',
      'all-permissions',
      'flow',
      'redirect-uris',
      'post-logout-redirect-uris',
      'auth-method',
      'id-token-alg',
      'require-par',
      'no-require-par',
      'remote-addresses',
      'jwks-file',
    ],
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const list = (name: string) =>
        optional(options, name) === undefined ? undefined : commaList(optional(options, name));
      // The whole request through the API's own schema, so the CLI refuses what the API refuses.
      const request = validatedRequest(createApiClientRequest, {
        name: required(options, 'name'),
        clientType: optional(options, 'type') ?? 'STANDARD',
        roles: commaList(optional(options, 'roles')),
        policies: commaList(optional(options, 'policies')),
        flowType: optional(options, 'flow'),
        redirectUris: list('redirect-uris'),
        postLogoutRedirectUris: list('post-logout-redirect-uris'),
        tokenEndpointAuthMethod: optional(options, 'auth-method'),
        idTokenSignedResponseAlg: optional(options, 'id-token-alg'),
        requirePushedAuthorizationRequests: switchOption(options, 'require-par'),
        remoteAddresses: list('remote-addresses'),
        jwks: await jsonFileOption(options, 'jwks-file'),
      });
      refuseStandardClientPolicies(request.clientType, request.policies);
      const permissions = permissionsOption(options);
      if (permissions.length > 0 && request.roles.length >= MAX_CLIENT_GRANTS) {
        // --permissions adds a role of its own.
        throw new UsageError(`--roles: at most ${MAX_CLIENT_GRANTS - 1} with --permissions`);
      }
      await requireOrganization(orgId);
      // Before the permissions role is made, so that a refused client leaves nothing behind.
      await requireGrantTargets(orgId, request.roles, request.policies);
      const granted =
        permissions.length > 0 ? await roleHoldingExactly(orgId, permissions, OPERATOR) : undefined;
      const client = await createApiClient({
        organizationId: orgId,
        ...request,
        roles: [...request.roles, ...(granted ? [granted.role.id] : [])],
        createdBy: OPERATOR,
      });
      const { id, clientSecret, name, clientType: type, roles, policies, flowType, redirectUris } = client;
      return {
        json: {
          ...{ id, clientSecret, name, organizationId: orgId, clientType: type, roles, policies, flowType },
          ...(client.tokenEndpointAuthMethod === 'private_key_jwt'
            ? { tokenEndpointAuthMethod: client.tokenEndpointAuthMethod, jwks: client.jwks }
            : {}),
          ...(flowType === 'authorization_code'
            ? {
                redirectUris,
                tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
                idTokenSignedResponseAlg: client.idTokenSignedResponseAlg,
                requirePushedAuthorizationRequests: client.requirePushedAuthorizationRequests === true,
              }
            : {}),
          ...(granted
            ? { permissionsRole: { id: granted.role.id, name: granted.role.name, created: granted.created } }
            : {}),
        },
        summary: lines(
          `Created API client ${client.name} in organization ${orgId}`,
          `  client_id:     ${client.id}`,
          `  client_secret: ${client.clientSecret || (client.tokenEndpointAuthMethod === 'private_key_jwt' ? '(none: it signs assertions with its registered keys)' : '(none: a public application)')}`,
          flowType === 'authorization_code' && `  redirect URIs: ${redirectUris.join(', ')}`,
          `  roles:         ${client.roles.join(', ') || '(none)'}`,
          granted &&
            `  ${granted.created ? 'created' : 'reused'} role ${granted.role.name} with ${granted.role.permissions?.size ?? 0} permission(s)`,
        ),
      };
    },
  },

  'client update': {
    usage:
      'client update --id CLIENT_ID [--name NAME] [--redirect-uris URI1,URI2] [--post-logout-redirect-uris URI1] ' +
      '[--id-token-alg RS256|ES256] [--require-par | --no-require-par] [--remote-addresses CIDR1,CIDR2] ' +
      '[--jwks-file JWKS.json]',
    options: [
      'id',
      'name',
      'redirect-uris',
      'post-logout-redirect-uris',
      'id-token-alg',
      'require-par',
      'no-require-par',
      'remote-addresses',
      'jwks-file',
    ],
    run: async (options) => {
      const list = (name: string) =>
        optional(options, name) === undefined ? undefined : commaList(optional(options, name));
      // The API's own schema and rules (PATCH /idp/clients/{id}): what it refuses, the CLI refuses.
      const changes = validatedRequest(updateApiClientRequest, {
        name: optional(options, 'name'),
        redirectUris: list('redirect-uris'),
        postLogoutRedirectUris: list('post-logout-redirect-uris'),
        idTokenSignedResponseAlg: optional(options, 'id-token-alg'),
        requirePushedAuthorizationRequests: switchOption(options, 'require-par'),
        remoteAddresses: list('remote-addresses'),
        jwks: await jsonFileOption(options, 'jwks-file'),
      });
      const client = await liveClient(options);
      const changed = await changeApiClient(client.organizationId, client.id, changes, OPERATOR);
      const { id, name, flowType, redirectUris, remoteAddresses } = changed;
      const application = flowType === 'authorization_code';
      return {
        json: {
          ...{ id, name, organizationId: changed.organizationId, flowType },
          ...(application
            ? {
                redirectUris,
                postLogoutRedirectUris: changed.postLogoutRedirectUris,
                idTokenSignedResponseAlg: idTokenSigningAlgorithm(changed),
                requirePushedAuthorizationRequests: changed.requirePushedAuthorizationRequests === true,
              }
            : { remoteAddresses }),
          ...(changed.jwks ? { jwks: changed.jwks } : {}),
        },
        summary: lines(
          `Changed API client ${id} (${name})`,
          application && `  redirect URIs: ${redirectUris.join(', ')}`,
          application &&
            `  sign-in requests: ${changed.requirePushedAuthorizationRequests ? 'pushed first only (PAR)' : 'straight or pushed'}`,
          !application && `  addresses: ${remoteAddresses.join(', ') || '(any)'}`,
          changed.jwks && `  keys: ${changed.jwks.keys.map((key) => key.kid ?? key.kty).join(', ')}`,
        ),
      };
    },
  },

  'client rotate': {
    usage: 'client rotate --id CLIENT_ID [--grace-seconds S]',
    options: ['id', 'grace-seconds'],
    run: async (options) => {
      const graceSeconds =
        integer(options, 'grace-seconds', 0, MAX_GRACE_SECONDS) ?? storeConfig().clientSecretGraceSeconds;
      const client = await liveClient(options);
      const rotated = await rotateClientSecret(client.organizationId, client.id, OPERATOR, graceSeconds);
      const previousValidUntil = new Date(Number(rotated.previousSecretExpiresAt)).toISOString();
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
};
