import { ssoRoutes } from '../shared/api/routes/sso.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { listSsoProviders, updateSsoProviderSecret } from '../shared/store/sso-provider-repository.js';

/** SSO providers (spec 4.5). Secrets go to the secret store only: never the table, a response or a log. */
export const handler = groupHandler(
  ssoRoutes,
  {
    listSsoProviders: async (_input, { principal }) => ({
      // The spec's closed shape: how people sign in through it is the operators' business.
      body: (await listSsoProviders(principal.organizationId)).map(
        ({ clientId, clientSecretExpirationDate }) => ({
          clientId,
          clientSecretExpirationDate,
        }),
      ),
    }),

    updateSsoProvider: async ({ path, body }, { principal }) => {
      await updateSsoProviderSecret(principal.organizationId, path.clientId, body, principal.id);
      return {};
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin },
);
