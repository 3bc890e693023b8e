import * as z from 'zod';
import { consent, consentStatus, nullableAgreement } from '../../schemas/consent.js';
import { presentableOrganization } from '../../schemas/organization.js';
import { MAX_SERVICE_IDS, servicesByIds, servicesByIdsRequest } from '../../schemas/services.js';
import { ok, routeGroup } from '../route-definition.js';

/** Organizations, agreements and consent, services (spec 4.5). */
export const organizationsRoutes = routeGroup('organizations')({
  getLatestAgreement: {
    route: 'GET /idp/latestAgreement',
    summary: 'The latest published agreement, or null when none is',
    response: {
      status: 200,
      description: 'AgreementsResponse, or null when no agreement is published',
      body: nullableAgreement,
    },
  },
  getConsentStatus: {
    route: 'GET /idp/consent',
    summary: 'Whether the caller accepted the latest agreement (true when none is published)',
    response: ok('Consent status', consentStatus),
  },
  recordConsent: {
    route: 'POST /idp/consent/{agreementId}',
    summary: "Record the caller's acceptance of an agreement; a repeat answers the first record",
    response: ok('The consent', consent),
  },
  resolveServicesByIds: {
    route: 'POST /idp/services/by-ids',
    summary:
      "Names of users and API clients of the caller's organization; unknown ids come back with id only",
    request: { body: servicesByIdsRequest },
    response: {
      status: 200,
      description: 'One entry per requested id, in request order',
      body: z.array(servicesByIds).max(MAX_SERVICE_IDS),
    },
  },
  listOrganizations: {
    route: 'GET /idp/organizations',
    summary: "The caller's organizations",
    response: ok('Organizations: the one of the token', z.array(presentableOrganization).max(1)),
  },
  getOrganization: {
    route: 'GET /idp/organizations/{id}',
    summary: "One of the caller's organizations",
    response: ok('The organization', presentableOrganization),
  },
});
