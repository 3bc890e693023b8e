import { z } from 'zod';
import { consent, consentStatus, nullableAgreement } from '../../schemas/consent.js';
import { presentableOrganization } from '../../schemas/organization.js';
import { servicesByIds, servicesByIdsRequest } from '../../schemas/services.js';
import { routeGroup } from '../route-definition.js';

/** Organizations, agreements and consent, services (spec 4.5). */
export const organizationsRoutes = routeGroup('organizations')({
  getLatestAgreement: {
    method: 'GET',
    path: '/idp/latestAgreement',
    summary: 'The latest published agreement, or null when none is',
    response: {
      status: 200,
      description: 'AgreementsResponse, or null when no agreement is published',
      body: nullableAgreement,
    },
  },
  getConsentStatus: {
    method: 'GET',
    path: '/idp/consent',
    summary: 'Whether the caller accepted the latest agreement (true when none is published)',
    response: { status: 200, description: 'Consent status', body: consentStatus },
  },
  recordConsent: {
    method: 'POST',
    path: '/idp/consent/{agreementId}',
    summary: "Record the caller's acceptance of an agreement; a repeat answers the first record",
    response: { status: 200, description: 'The consent', body: consent },
  },
  resolveServicesByIds: {
    method: 'POST',
    path: '/idp/services/by-ids',
    summary:
      "Names of users and API clients of the caller's organization; unknown ids come back with id only",
    request: { body: servicesByIdsRequest },
    response: {
      status: 200,
      description: 'One entry per requested id, in request order',
      body: z.array(servicesByIds),
    },
  },
  listOrganizations: {
    method: 'GET',
    path: '/idp/organizations',
    summary: "The caller's organizations",
    response: { status: 200, description: 'Organizations', body: z.array(presentableOrganization) },
  },
  getOrganization: {
    method: 'GET',
    path: '/idp/organizations/{id}',
    summary: "One of the caller's organizations",
    response: { status: 200, description: 'The organization', body: presentableOrganization },
  },
});
