import { routeGroup } from '../route-definition.js';

/** CORS preflights of browser applications, for every path (the origin decides, not the path). */
export const corsRoutes = routeGroup('cors')({
  preflight: {
    route: 'OPTIONS /{proxy+}',
    kind: 'preflight',
    summary: 'CORS preflight: allowed for the origins of registered applications and configured extras',
    description:
      "Sent by browsers without credentials, for any path: answers the one allowed origin (the origin of a registered application's redirect URI, or one the operator allows), the methods and the headers, with `Vary: Origin`. Other origins get no CORS grant.",
    response: { status: 204, description: 'The methods and headers the origin may use, or a refusal' },
  },
});
