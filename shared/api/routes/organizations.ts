import { z } from 'zod';
import { idPathParams } from '../../schemas/common.js';
import { presentableOrganization } from '../../schemas/organization.js';
import { servicesByIds, servicesByIdsRequest } from '../../schemas/services.js';
import { ALL_USER_TYPES, defineRoute } from '../route-definition.js';

/** Organizations, services (spec 4.5). */
export const organizationsRoutes = {
  listOrganizations: defineRoute({
    operationId: 'listOrganizations',
    method: 'GET',
    path: '/idp/organizations',
    group: 'organizations',
    kind: 'management',
    summary: "The caller's organizations",
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: { status: 200, description: 'Organizations', body: z.array(presentableOrganization) },
  }),
  getOrganization: defineRoute({
    operationId: 'getOrganization',
    method: 'GET',
    path: '/idp/organizations/{id}',
    group: 'organizations',
    kind: 'management',
    summary: "One of the caller's organizations",
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: { path: idPathParams },
    response: { status: 200, description: 'The organization', body: presentableOrganization },
    errors: [404],
  }),
  resolveServicesByIds: defineRoute({
    operationId: 'resolveServicesByIds',
    method: 'POST',
    path: '/idp/services/by-ids',
    group: 'organizations',
    kind: 'management',
    summary:
      "Names of users and API clients of the caller's organization; unknown ids come back with id only",
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: { body: servicesByIdsRequest },
    response: {
      status: 200,
      description: 'One entry per requested id, in request order',
      body: z.array(servicesByIds),
    },
  }),
} as const;
