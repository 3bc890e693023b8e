import { consoleRoutes } from '../shared/api/routes/console.js';
import { hostedPage } from '../shared/auth/hosted-page.js';
import { consoleAsset, showConsole } from '../shared/console/console-page.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';

/** The admin console's page and files (docs/console.md). */
export const handler = groupHandler(
  consoleRoutes,
  { showConsole: hostedPage(showConsole), consoleAsset: hostedPage(consoleAsset) },
  { errorPage },
);
