import { routeUrl } from '../shared/api/route-url.js';
import { scimTokensRoutes } from '../shared/api/routes/scim-tokens.js';
import { Conflict } from '../shared/domain/errors.js';
import { groupHandler, type SecretRereader } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { createScimToken, listScimTokens, revokeScimToken } from '../shared/store/scim-tokens.js';

/**
 * A replayed creation cannot show the value again: nothing keeps it. The repeat is told which
 * token the first request created, so that it can be revoked and another made.
 */
const valueShownOnce: SecretRereader = async (recorded) => {
  throw new Conflict(
    'SCIM token',
    `This request created SCIM token ${String(recorded.id)}, whose value was shown once and cannot be shown again; revoke it and create another if the value was lost`,
  );
};

/** SCIM bearer secrets: created (the value answered once), listed without values, revoked. */
export const handler = groupHandler(
  scimTokensRoutes,
  {
    listScimTokens: async (_input, { principal }) => ({
      body: await listScimTokens(principal.organizationId),
    }),

    createScimToken: async ({ body }, { principal }) => {
      const created = await createScimToken(principal.organizationId, body.name, principal.id);
      return {
        body: created,
        headers: { location: routeUrl(scimTokensRoutes.revokeScimToken, { id: created.id }) },
      };
    },

    revokeScimToken: async ({ path }, { principal }) => {
      await revokeScimToken(principal.organizationId, path.id);
      return {};
    },
  },
  {
    admission,
    registeredOrigin: isRegisteredOrigin,
    idempotency,
    secretRereaders: { createScimToken: valueShownOnce },
  },
);
