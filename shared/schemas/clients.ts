import {
  addressRangeProblem,
  FLOW_TYPES,
  ID_TOKEN_SIGNING_ALGORITHMS,
  IMPLICIT_REFUSED,
  redirectUriProblem,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '../domain/applications.js';
import {
  type ClientJwks,
  clientKeySetProblem,
  MAX_CLIENT_KEYS,
  PRIVATE_KEY_JWT,
} from '../domain/client-keys.js';
import * as z from '../zod.js';
import { jwkSchemas } from './client-jwk.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

export const clientType = z.enum(['STANDARD', 'RESTRICTED']);

const clientName = oneLine(200);
/** 32 random bytes, base64url (shared/store/api-client-repository.ts); empty for a public application. */
const CLIENT_SECRET = z.withMeta(z.string().check(z.maxLength(43), z.regex(/^[A-Za-z0-9_-]*$/)), {
  format: 'password',
});
/** A client's roles and policies are set when it is created and never grow. */
export const MAX_CLIENT_GRANTS = 40;
const clientGrants = z.array(identifier).check(z.maxLength(MAX_CLIENT_GRANTS));

export const apiClient = z.withMeta(
  z.strictObject({
    id: z.withMeta(identifier, { description: 'The client_id of token requests' }),
    clientSecret: z.withMeta(CLIENT_SECRET, {
      description:
        'The client_secret of token requests; empty for a public application (tokenEndpointAuthMethod none)',
    }),
    name: clientName,
    roles: clientGrants,
    clientType,
    policies: z.withMeta(clientGrants, { description: 'Empty for a STANDARD client' }),
    organizationId: identifier,
    createdBy: identifier,
    createdDate: epochMillis,
    lastModifiedBy: identifier,
    lastModifiedDate: epochMillis,
  }),
  { id: 'APIClientV2' },
);

export const apiClientName = z.withMeta(z.strictObject({ id: identifier, name: clientName }), {
  id: 'APIClientName',
});

const checked = (problem: (value: string) => string | undefined) =>
  z.string().check(
    z.maxLength(2000),
    z.superRefine((value: string, context) => {
      const message = problem(value);
      if (message) context.addIssue({ code: 'custom', message });
    }),
  );

const flowType = z.enum(FLOW_TYPES, {
  error: (issue) => (issue.input === 'implicit' ? IMPLICIT_REFUSED : undefined),
});
const tokenEndpointAuthMethod = z.enum(TOKEN_ENDPOINT_AUTH_METHODS);
const idTokenSignedResponseAlg = z.enum(ID_TOKEN_SIGNING_ALGORITHMS);
const redirectUris = z
  .array(z.withMeta(checked(redirectUriProblem), { format: 'uri' }))
  .check(z.maxLength(20));
const remoteAddresses = z
  .array(
    checked(addressRangeProblem).check(
      z.regex(/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 'An IP address or CIDR block'),
    ),
  )
  .check(z.maxLength(50));

/** The public keys of a client that authenticates with private_key_jwt (OpenID Connect Core 9). */
const clientJwks = z.withMeta(
  z
    .strictObject({ keys: z.array(jwkSchemas().jwk).check(z.minLength(1), z.maxLength(MAX_CLIENT_KEYS)) })
    .check(
      z.superRefine((jwks: ClientJwks, context) => {
        const problem = clientKeySetProblem(jwks);
        if (problem)
          context.addIssue({
            code: 'custom',
            path: problem.index === undefined ? ['keys'] : ['keys', problem.index],
            message: problem.message,
          });
      }),
    ),
  {
    description:
      'private_key_jwt only: 1 to 5 public signing keys (a JWK Set: EC P-256/384/521, RSA of 2048 bits or more, or OKP Ed25519); with several, each has its own kid',
  },
);

/** What an application registers beyond an API client (extension; docs/sign-in.md). */
const applicationFields = {
  flowType: z.withMeta(z._default(flowType, 'api_key'), {
    description: 'api_key: client credentials (default); authorization_code: people sign in',
  }),
  redirectUris: z.withMeta(z.optional(redirectUris), {
    description: 'authorization_code only, required: exact https URIs (http only on loopback)',
  }),
  postLogoutRedirectUris: z.withMeta(z.optional(redirectUris), { description: 'authorization_code only' }),
  tokenEndpointAuthMethod: z.withMeta(z.optional(tokenEndpointAuthMethod), {
    description:
      'How the client proves itself at the token endpoint. An application: client_secret_basic (default), client_secret_post, none (a public application without a secret) or private_key_jwt. An api_key client: a secret (leave this out) or private_key_jwt',
  }),
  jwks: z.optional(clientJwks),
  idTokenSignedResponseAlg: z.withMeta(z.optional(idTokenSignedResponseAlg), {
    description:
      "authorization_code only: what its ID tokens are signed with (OpenID Connect Registration's id_token_signed_response_alg; default RS256)",
  }),
  requirePushedAuthorizationRequests: z.withMeta(z.optional(z.boolean()), {
    description:
      "authorization_code only: its sign-in requests must be pushed first (POST /oauth2/par; RFC 9126's require_pushed_authorization_requests; default false)",
  }),
  remoteAddresses: z.withMeta(z.optional(remoteAddresses), {
    description: 'api_key only: addresses or CIDR blocks client credentials may be used from',
  }),
};

const APPLICATION_ONLY_FIELDS = [
  'redirectUris',
  'postLogoutRedirectUris',
  'idTokenSignedResponseAlg',
  'requirePushedAuthorizationRequests',
] as const;

const createApiClientFields = z.strictObject({
  name: clientName,
  clientType,
  roles: z._default(clientGrants, []),
  policies: z.withMeta(z._default(clientGrants, []), { description: 'Only for a RESTRICTED client' }),
  ...applicationFields,
});

export const createApiClientRequest = z.withMeta(
  createApiClientFields.check(
    z.superRefine((request: z.output<typeof createApiClientFields>, context) => {
      const misplaced = (field: string, message: string) =>
        context.addIssue({ code: 'custom', path: [field], message });
      if (request.flowType === 'authorization_code') {
        if (!request.redirectUris?.length)
          misplaced('redirectUris', 'An authorization_code application needs at least one redirect URI');
        if (request.remoteAddresses)
          misplaced('remoteAddresses', 'Only an api_key client is restricted by address');
      } else {
        for (const field of APPLICATION_ONLY_FIELDS)
          if (request[field] !== undefined) misplaced(field, 'Only for an authorization_code application');
        if (
          request.tokenEndpointAuthMethod !== undefined &&
          request.tokenEndpointAuthMethod !== PRIVATE_KEY_JWT
        )
          misplaced(
            'tokenEndpointAuthMethod',
            'An api_key client authenticates with a secret (leave this out) or private_key_jwt',
          );
      }
      if (request.tokenEndpointAuthMethod === PRIVATE_KEY_JWT && !request.jwks)
        misplaced('jwks', 'A private_key_jwt client registers its public keys');
      if (request.tokenEndpointAuthMethod !== PRIVATE_KEY_JWT && request.jwks)
        misplaced('jwks', 'Only for a client that authenticates with private_key_jwt');
    }),
  ),
  { id: 'CreateAPIClientRequest' },
);

/**
 * What may change after registration (extension): the name, where an application's browsers go,
 * what its ID tokens are signed with, whether its sign-in requests must be pushed, where an API
 * client's credentials may be used from, the public keys of a private_key_jwt client. Its
 * type, flow, roles, policies and authentication method stay as registered. Each field left out
 * keeps its value; at least one is given.
 */
export const updateApiClientRequest = z.withMeta(
  z
    .strictObject({
      name: z.optional(clientName),
      redirectUris: z.optional(redirectUris),
      postLogoutRedirectUris: z.optional(redirectUris),
      idTokenSignedResponseAlg: z.optional(idTokenSignedResponseAlg),
      requirePushedAuthorizationRequests: z.optional(z.boolean()),
      remoteAddresses: z.optional(remoteAddresses),
      jwks: z.optional(clientJwks),
    })
    .check(
      z.refine(
        (request: Record<string, unknown>) => Object.values(request).some((value) => value !== undefined),
        {
          message: 'Give at least one field to change',
        },
      ),
    ),
  { id: 'UpdateAPIClientRequest' },
);

/** One client with every registered field but its secret (extension). */
export const apiClientDetails = z.withMeta(
  z.strictObject({
    ...z.omit(apiClient, { clientSecret: true }).shape,
    flowType,
    redirectUris,
    postLogoutRedirectUris: redirectUris,
    tokenEndpointAuthMethod: z.optional(tokenEndpointAuthMethod),
    idTokenSignedResponseAlg: z.withMeta(z.optional(idTokenSignedResponseAlg), {
      description: 'authorization_code only; ES256 for applications registered before RS256 was offered',
    }),
    requirePushedAuthorizationRequests: z.withMeta(z.optional(z.boolean()), {
      description: 'authorization_code only',
    }),
    remoteAddresses,
    jwks: z.optional(clientJwks),
  }),
  { id: 'APIClientDetails' },
);
