import { routeGroup } from '../route-definition.js';

/** CORS preflights of browser applications, for every path (the origin decides, not the path). */
export const corsRoutes = routeGroup('cors')({
  preflight: {
    route: 'OPTIONS /{proxy+}',
    kind: 'preflight',
    summary: 'CORS preflight: allowed for the origins of registered applications and configured extras',
    response: { status: 204, description: 'The methods and headers the origin may use, or a refusal' },
  },
});
