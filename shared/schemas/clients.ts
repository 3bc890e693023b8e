import * as z from 'zod';
import { epochMillis, identifier } from './common.js';

export const clientType = z.enum(['STANDARD', 'RESTRICTED']);

export const apiClient = z
  .strictObject({
    id: z.string().meta({ description: 'The client_id of token requests' }),
    clientSecret: z.string().meta({ description: 'The client_secret of token requests' }),
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

export const createApiClientRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    clientType,
    roles: z.array(identifier).max(40).default([]),
    policies: z.array(identifier).max(40).default([]).meta({ description: 'Only for a RESTRICTED client' }),
  })
  .meta({ id: 'CreateAPIClientRequest' });
