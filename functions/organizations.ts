import { organizationsRoutes } from '../shared/api/routes/organizations.js';
import { NotFound } from '../shared/domain/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { hasAcceptedLatest, latestAgreement, recordConsent } from '../shared/store/consent-repository.js';
import { getOrganization, type Organization } from '../shared/store/organization-repository.js';
import { serviceNames } from '../shared/store/service-directory.js';

const presentOrganization = (organization: Organization) => ({
  id: organization.id,
  name: organization.name,
  createdAt: organization.createdAt,
  updatedAt: organization.updatedAt,
  ...(organization.createdBy ? { createdBy: organization.createdBy } : {}),
  mfa: { enabled: organization.mfaEnabled },
});

/** Organizations visible to the caller (spec 4.5): a principal exists in exactly one. */
export const handler = groupHandler(
  organizationsRoutes,
  {
    listOrganizations: async (_input, { principal }) => {
      const organization = await getOrganization(principal.organizationId);
      return { body: organization ? [presentOrganization(organization)] : [] };
    },

    getLatestAgreement: async () => ({ body: (await latestAgreement()) ?? null }),

    getConsentStatus: async (_input, { principal }) => ({
      body: { accepted: await hasAcceptedLatest(principal.organizationId, principal.id) },
    }),

    recordConsent: async ({ path }, { principal }) => ({
      body: await recordConsent(principal.organizationId, principal.id, path.agreementId),
    }),

    resolveServicesByIds: async ({ body }, { principal }) => {
      const names = await serviceNames(principal.organizationId, body.ids);
      return {
        body: body.ids.map((id) => {
          const name = names.get(id);
          return name === undefined ? { id } : { id, name };
        }),
      };
    },

    getOrganization: async ({ path }, { principal }) => {
      // Another organization's id answers exactly like an unknown one.
      const organization = path.id === principal.organizationId ? await getOrganization(path.id) : undefined;
      if (!organization) throw new NotFound('Organization', path.id);
      return { body: presentOrganization(organization) };
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin, idempotency },
);
