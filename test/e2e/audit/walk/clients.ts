import { idFromLocation } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** An API client of the organization, registered through the API. */
export const withClient = async (service: TestService, org: ClientCaller) => {
  const created = await service.call('POST', '/idp/clients', {
    token: org.token,
    body: { name: 'Walk Client', clientType: 'STANDARD', roles: [], policies: [] },
  });
  if (created.status !== 201) throw new Error(`client not registered: ${JSON.stringify(created.body)}`);
  return { clientId: idFromLocation(created) };
};

/** The API clients group's writes. */
export const CLIENTS_CALLS: WalkCalls = {
  createApiClient: walkCall({
    path: () => '/idp/clients',
    body: () => ({ name: 'Walk Client', clientType: 'STANDARD', roles: [], policies: [] }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  updateApiClient: walkCall({
    prepare: withClient,
    path: ({ clientId }) => `/idp/clients/${clientId}`,
    body: () => ({ name: 'Walk Client, renamed' }),
    target: ({ clientId }) => clientId,
  }),
  rotateApiClientSecret: walkCall({
    prepare: withClient,
    path: ({ clientId }) => `/idp/clients/${clientId}/rotateSecret`,
    target: ({ clientId }) => clientId,
  }),
  deleteApiClient: walkCall({
    prepare: withClient,
    path: ({ clientId }) => `/idp/clients/${clientId}`,
    target: ({ clientId }) => clientId,
  }),
};
