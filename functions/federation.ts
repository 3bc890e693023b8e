import { federationRoutes } from '../shared/api/routes/federation.js';
import { finishFederation, startFederation } from '../shared/auth/federation/federated-sign-in.js';
import { hostedPage } from '../shared/auth/hosted-page.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';

/** Sign-in through SSO providers: the only function that reads their client secrets. */
export const handler = groupHandler(
  federationRoutes,
  { startFederation: hostedPage(startFederation), finishFederation: hostedPage(finishFederation) },
  { errorPage },
);
