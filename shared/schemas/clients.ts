import * as z from 'zod';
import {
  addressRangeProblem,
  FLOW_TYPES,
  IMPLICIT_REFUSED,
  redirectUriProblem,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '../domain/applications.js';
import { epochMillis, identifier } from './common.js';
import { oneLine } from './text.js';

export const clientType = z.enum(['STANDARD', 'RESTRICTED']);

const clientName = oneLine(200);
/** 32 random bytes, base64url (shared/store/api-client-repository.ts); empty for a public application. */
const CLIENT_SECRET = z
  .string()
  .max(43)
  .regex(/^[A-Za-z0-9_-]*$/)
  .meta({ format: 'password' });
/** A client's roles and policies are set when it is created and never grow. */
export const MAX_CLIENT_GRANTS = 40;
const clientGrants = z.array(identifier).max(MAX_CLIENT_GRANTS);

export const apiClient = z
  .strictObject({
    id: identifier.meta({ description: 'The client_id of token requests' }),
    clientSecret: CLIENT_SECRET.meta({
      description:
        'The client_secret of token requests; empty for a public application (tokenEndpointAuthMethod none)',
    }),
    name: clientName,
    roles: clientGrants,
    clientType,
    policies: clientGrants.meta({ description: 'Empty for a STANDARD client' }),
    organizationId: identifier,
    createdBy: identifier,
    createdDate: epochMillis,
    lastModifiedBy: identifier,
    lastModifiedDate: epochMillis,
  })
  .meta({ id: 'APIClientV2' });

export const apiClientName = z
  .strictObject({ id: identifier, name: clientName })
  .meta({ id: 'APIClientName' });

const checked = (problem: (value: string) => string | undefined) =>
  z
    .string()
    .max(2000)
    .superRefine((value, context) => {
      const message = problem(value);
      if (message) context.addIssue({ code: 'custom', message });
    });

const flowType = z.enum(FLOW_TYPES, {
  error: (issue) => (issue.input === 'implicit' ? IMPLICIT_REFUSED : undefined),
});
const tokenEndpointAuthMethod = z.enum(TOKEN_ENDPOINT_AUTH_METHODS);
const redirectUris = z.array(checked(redirectUriProblem).meta({ format: 'uri' })).max(20);
const remoteAddresses = z
  .array(checked(addressRangeProblem).regex(/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 'An IP address or CIDR block'))
  .max(50);

/** What an application registers beyond an API client (extension; docs/sign-in.md). */
const applicationFields = {
  flowType: flowType
    .default('api_key')
    .meta({ description: 'api_key: client credentials (default); authorization_code: people sign in' }),
  redirectUris: redirectUris.optional().meta({
    description: 'authorization_code only, required: exact https URIs (http only on loopback)',
  }),
  postLogoutRedirectUris: redirectUris.optional().meta({ description: 'authorization_code only' }),
  tokenEndpointAuthMethod: tokenEndpointAuthMethod.optional().meta({
    description:
      'authorization_code only (default client_secret_basic); none: a public application without a secret',
  }),
  remoteAddresses: remoteAddresses
    .optional()
    .meta({ description: 'api_key only: addresses or CIDR blocks client credentials may be used from' }),
};

export const createApiClientRequest = z
  .strictObject({
    name: clientName,
    clientType,
    roles: clientGrants.default([]),
    policies: clientGrants.default([]).meta({ description: 'Only for a RESTRICTED client' }),
    ...applicationFields,
  })
  .superRefine((request, context) => {
    const misplaced = (field: string, message: string) =>
      context.addIssue({ code: 'custom', path: [field], message });
    if (request.flowType === 'authorization_code') {
      if (!request.redirectUris?.length)
        misplaced('redirectUris', 'An authorization_code application needs at least one redirect URI');
      if (request.remoteAddresses)
        misplaced('remoteAddresses', 'Only an api_key client is restricted by address');
    } else {
      for (const field of ['redirectUris', 'postLogoutRedirectUris', 'tokenEndpointAuthMethod'] as const)
        if (request[field] !== undefined) misplaced(field, 'Only for an authorization_code application');
    }
  })
  .meta({ id: 'CreateAPIClientRequest' });

/** One client with every registered field but its secret (extension). */
export const apiClientDetails = z
  .strictObject({
    ...apiClient.omit({ clientSecret: true }).shape,
    flowType,
    redirectUris,
    postLogoutRedirectUris: redirectUris,
    tokenEndpointAuthMethod: tokenEndpointAuthMethod.optional(),
    remoteAddresses,
  })
  .meta({ id: 'APIClientDetails' });
