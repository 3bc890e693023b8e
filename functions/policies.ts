import { routeUrl } from '../shared/api/route-url.js';
import { policiesRoutes } from '../shared/api/routes/policies.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import {
  archivePolicy,
  createPolicy,
  listPolicies,
  type PolicyRecord,
  renamePolicy,
  requirePolicy,
} from '../shared/store/policy-repository.js';

const presentPolicy = (policy: PolicyRecord) => ({ id: policy.id, name: policy.name });

/** Policies (spec 4.4). */
export const handler = groupHandler(
  policiesRoutes,
  {
    listPolicies: async (_input, { principal }) => ({
      body: (await listPolicies(principal.organizationId)).map(presentPolicy),
    }),

    createPolicy: async ({ body }, { principal }) => {
      const policy = await createPolicy({
        organizationId: principal.organizationId,
        ...body,
        createdBy: principal.id,
      });
      // Beyond the spec: the 204 names the new policy, which the body cannot.
      return { headers: { location: routeUrl(policiesRoutes.getPolicy, { id: policy.id }) } };
    },

    getPolicy: async ({ path }, { principal }) => ({
      body: presentPolicy(await requirePolicy(principal.organizationId, path.id)),
    }),

    renamePolicy: async ({ path, body }, { principal }) => {
      await renamePolicy(principal.organizationId, path.id, body.name);
      return {};
    },

    archivePolicy: async ({ path }, { principal }) => {
      await archivePolicy(principal.organizationId, path.id);
      return {};
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin, idempotency },
);
