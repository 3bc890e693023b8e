import { corsRoutes } from '../shared/api/routes/cors.js';
import { answerPreflight } from '../shared/http/cors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';

/** CORS preflights (`OPTIONS` on any path). */
export const handler = groupHandler(corsRoutes, {
  preflight: async (_input, { event }) => ({ raw: await answerPreflight(event, isRegisteredOrigin) }),
});
