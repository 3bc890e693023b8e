import { apiClient, apiClientDetails, apiClientName, createApiClientRequest } from '../../schemas/clients.js';
import { noContent, ok, pagedListing, routeGroup } from '../route-definition.js';

/** API clients (spec 4.5; registration, rotation and deletion beyond it). */
export const clientsRoutes = routeGroup('clients')({
  listApiClients: {
    route: 'GET /idp/clients',
    summary: "The organization's API clients, oldest first, with their secrets",
    permissions: ['API_CLIENTS.READ'],
    ...pagedListing('clients', apiClient),
  },
  listApiClientNames: {
    route: 'GET /idp/clients/name',
    summary: "Ids and names of the organization's API clients, oldest first",
    ...pagedListing('names', apiClientName),
  },
  getApiClient: {
    route: 'GET /idp/clients/{id}',
    summary: 'One API client or application with everything it registered, but not its secret',
    permissions: ['API_CLIENTS.READ'],
    response: ok('The client', apiClientDetails),
    extension: true,
  },
  createApiClient: {
    route: 'POST /idp/clients',
    summary:
      'Register an API client (client credentials) or an application people sign in to (authorization code with PKCE); the answer carries its secret',
    permissions: ['API_CLIENTS.WRITE'],
    request: { body: createApiClientRequest },
    response: {
      status: 201,
      description: 'Registered; Location names it',
      body: apiClient,
      location: true,
      secretField: 'clientSecret',
    },
    extension: true,
  },
  rotateApiClientSecret: {
    route: 'POST /idp/clients/{id}/rotateSecret',
    summary: 'Issue a new secret; the previous one keeps working for a grace period (24 h by default)',
    permissions: ['API_CLIENTS.WRITE'],
    response: {
      status: 200,
      description: 'The client with its new secret',
      body: apiClient,
      secretField: 'clientSecret',
    },
    extension: true,
  },
  deleteApiClient: {
    route: 'DELETE /idp/clients/{id}',
    summary: 'Delete an API client: no more tokens at once; tokens it holds are refused within 30 s',
    permissions: ['API_CLIENTS.WRITE'],
    response: noContent('Deleted'),
    extension: true,
  },
});
