import { z } from 'zod';
import { idPathParams } from '../../schemas/common.js';
import { agreementPathParams, consent, consentStatus, nullableAgreement } from '../../schemas/consent.js';
import { presentableOrganization } from '../../schemas/organization.js';
import { servicesByIds, servicesByIdsRequest } from '../../schemas/services.js';
import { ALL_USER_TYPES, defineRoute } from '../route-definition.js';

/** Organizations, agreements and consent, services (spec 4.5). */
export const organizationsRoutes = {
  getLatestAgreement: defineRoute({
    operationId: 'getLatestAgreement',
    method: 'GET',
    path: '/idp/latestAgreement',
    group: 'organizations',
    kind: 'management',
    summary: 'The latest published agreement, or null when none is',
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: {
      status: 200,
      description: 'AgreementsResponse, or null when no agreement is published',
      body: nullableAgreement,
    },
  }),
  getConsentStatus: defineRoute({
    operationId: 'getConsentStatus',
    method: 'GET',
    path: '/idp/consent',
    group: 'organizations',
    kind: 'management',
    summary: 'Whether the caller accepted the latest agreement (true when none is published)',
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: {},
    response: { status: 200, description: 'Consent status', body: consentStatus },
  }),
  recordConsent: defineRoute({
    operationId: 'recordConsent',
    method: 'POST',
    path: '/idp/consent/{agreementId}',
    group: 'organizations',
    kind: 'management',
    summary: "Record the caller's acceptance of an agreement; a repeat answers the first record",
    permissions: [],
    userTypes: ALL_USER_TYPES,
    request: { path: agreementPathParams },
    response: { status: 200, description: 'The consent', body: consent },
    errors: [404],
  }),
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
