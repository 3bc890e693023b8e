import { routeGroup } from '../route-definition.js';

/**
 * The admin console (docs/console.md): a single-page application of this origin. Its page and
 * files need no token; everything it shows comes from the management API with the person's own
 * token.
 */
export const consoleRoutes = routeGroup('console')({
  showConsole: {
    route: 'GET /console/{organizationId}',
    kind: 'page',
    summary: "The admin console's page for an organization",
    description:
      "Signs the person in through the hosted sign-in as the organization's console application (`console-<organizationId>`, registered by `npm start` or `idp-admin console enable`), then calls the management API with their token.",
    response: { status: 200, description: 'The page' },
  },
  consoleAsset: {
    route: 'GET /console/assets/{file}',
    kind: 'page',
    summary: "The console's script and stylesheet",
    description: 'Named by their content hash: browsers keep them.',
    response: { status: 200, description: 'JavaScript or CSS' },
  },
});
