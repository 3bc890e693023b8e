import { consent, consentStatus, nullableAgreement } from '../../schemas/consent.js';
import { presentableOrganization } from '../../schemas/organization.js';
import { MAX_SERVICE_IDS, servicesByIds, servicesByIdsRequest } from '../../schemas/services.js';
import * as z from '../../zod.js';
import { ok, routeGroup } from '../route-definition.js';

/** Organizations, agreements and consent, services (spec 4.5). */
export const organizationsRoutes = routeGroup('organizations')({
  getLatestAgreement: {
    route: 'GET /idp/latestAgreement',
    summary: 'The latest published agreement, or null when none is',
    description: 'Agreements are global, published by operators; `createdAt` is an ISO 8601 string.',
    response: {
      status: 200,
      description: 'AgreementsResponse, or null when no agreement is published',
      body: nullableAgreement,
    },
  },
  getConsentStatus: {
    route: 'GET /idp/consent',
    summary: 'Whether the caller accepted the latest agreement (true when none is published)',
    description:
      "Whether the token's principal (a user or an API client) accepted the latest agreement; true when none is published. Consent to an older agreement does not count.",
    response: ok('Consent status', consentStatus),
  },
  recordConsent: {
    route: 'POST /idp/consent/{agreementId}',
    summary: "Record the caller's acceptance of an agreement; a repeat answers the first record",
    description:
      "Records that the token's principal accepts the agreement, in its organization; 404 for an unknown agreement. A repeat answers the first record (same id); consent to an older agreement is recorded but does not accept the latest.",
    response: ok('The consent', consent),
    audit: ['consent.accepted'],
  },
  resolveServicesByIds: {
    route: 'POST /idp/services/by-ids',
    summary:
      "Names of users and API clients of the caller's organization; unknown ids come back with id only",
    description:
      "Resolves user and API client ids to names in one read, for showing who did what. Answers keep the request order; ids of nothing in the caller's organization come back with `id` only, never a 404.",
    request: { body: servicesByIdsRequest },
    response: {
      status: 200,
      description: 'One entry per requested id, in request order',
      body: z.array(servicesByIds).check(z.maxLength(MAX_SERVICE_IDS)),
    },
    // A read by POST (the ids do not fit a URL): it changes nothing.
    audit: [],
  },
  listOrganizations: {
    route: 'GET /idp/organizations',
    summary: "The caller's organizations",
    description:
      "A principal belongs to exactly one organization, so the list holds the token's organization.",
    response: ok(
      'Organizations: the one of the token',
      z.array(presentableOrganization).check(z.maxLength(1)),
    ),
  },
  getOrganization: {
    route: 'GET /idp/organizations/{id}',
    summary: "One of the caller's organizations",
    description: "The token's organization; any other id is 404, exactly like an unknown id.",
    response: ok('The organization', presentableOrganization),
  },
});
