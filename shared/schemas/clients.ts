import * as z from 'zod';
import {
  addressRangeProblem,
  FLOW_TYPES,
  IMPLICIT_REFUSED,
  redirectUriProblem,
  TOKEN_ENDPOINT_AUTH_METHODS,
} from '../domain/applications.js';
import { epochMillis, identifier } from './common.js';

export const clientType = z.enum(['STANDARD', 'RESTRICTED']);

export const apiClient = z
  .strictObject({
    id: z.string().meta({ description: 'The client_id of token requests' }),
    clientSecret: z.string().meta({
      description:
        'The client_secret of token requests; empty for a public application (tokenEndpointAuthMethod none)',
    }),
    name: z.string(),
    roles: z.array(z.string()),
    clientType,
    policies: z.array(z.string()).meta({ description: 'Empty for a STANDARD client' }),
    organizationId: z.string(),
    createdBy: z.string(),
    createdDate: epochMillis,
    lastModifiedBy: z.string(),
    lastModifiedDate: epochMillis,
  })
  .meta({ id: 'APIClientV2' });

export const apiClientName = z
  .strictObject({ id: z.string(), name: z.string() })
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
const redirectUris = z.array(checked(redirectUriProblem)).max(20);
const remoteAddresses = z.array(checked(addressRangeProblem)).max(50);

/** What an application registers beyond an API client (extension; README "Applications"). */
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
    name: z.string().trim().min(1).max(200),
    clientType,
    roles: z.array(identifier).max(40).default([]),
    policies: z.array(identifier).max(40).default([]).meta({ description: 'Only for a RESTRICTED client' }),
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
    redirectUris: z.array(z.string()),
    postLogoutRedirectUris: z.array(z.string()),
    tokenEndpointAuthMethod: tokenEndpointAuthMethod.optional(),
    remoteAddresses: z.array(z.string()),
  })
  .meta({ id: 'APIClientDetails' });
