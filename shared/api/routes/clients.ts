import {
  apiClient,
  apiClientDetails,
  apiClientName,
  createApiClientRequest,
  updateApiClientRequest,
} from '../../schemas/clients.js';
import { noContent, ok, pagedListing, routeGroup } from '../route-definition.js';

/** API clients (spec 4.5; registration, rotation and deletion beyond it). */
export const clientsRoutes = routeGroup('clients')({
  listApiClients: {
    route: 'GET /idp/clients',
    summary: "The organization's API clients, oldest first, with their secrets",
    description: `Lists the organization's API clients and applications in creation order, one page at a time (\`page\`, \`pageSize\`; \`Link: <...>; rel="next"\` while more exist). \`policies\` are shown for RESTRICTED clients only and archived roles and policies are hidden; a client registered a moment ago may be missing for up to a second.`,
    permissions: ['API_CLIENTS.READ'],
    ...pagedListing('clients', apiClient),
  },
  listApiClientNames: {
    route: 'GET /idp/clients/name',
    summary: "Ids and names of the organization's API clients, oldest first",
    description:
      'The same order and paging as the client list, with nothing but ids and names (no secrets, no grants).',
    ...pagedListing('names', apiClientName),
  },
  getApiClient: {
    route: 'GET /idp/clients/{id}',
    summary: 'One API client or application with everything it registered, but not its secret',
    description:
      "Reads one API client or application of the caller's organization: its type, flow, redirect URIs, remote addresses, roles and policies, never its secret. A client of another organization is 404, like an unknown id.",
    permissions: ['API_CLIENTS.READ'],
    response: ok('The client', apiClientDetails),
    extension: true,
  },
  createApiClient: {
    route: 'POST /idp/clients',
    summary:
      'Register an API client (client credentials) or an application people sign in to (authorization code with PKCE); the answer carries its secret',
    description:
      'Registers an API client (`api_key`, client credentials, optionally limited to `remoteAddresses`) or an application people sign in to (`authorization_code` with exact `redirectUris`). Answers 201 with `Location` and the client with its secret (a public application gets none); roles and policies must be live in the organization (400), and policies are for RESTRICTED clients only.',
    permissions: ['API_CLIENTS.WRITE'],
    request: { body: createApiClientRequest },
    response: {
      status: 201,
      description: 'Registered; Location names it',
      body: apiClient,
      location: true,
      secretField: 'clientSecret',
    },
    audit: ['client.created'],
    extension: true,
  },
  updateApiClient: {
    route: 'PATCH /idp/clients/{id}',
    summary:
      "Change an API client's or application's name, redirect URIs, ID token algorithm, pushed requests or addresses",
    description:
      'Changes what is given and keeps the rest: `name`; for an application `redirectUris` (at least one), `postLogoutRedirectUris`, `idTokenSignedResponseAlg` and `requirePushedAuthorizationRequests`; for an API client `remoteAddresses`. Its type, flow, roles, policies, authentication method and secret stay (400 for a field of the other kind of client). Answers the client as `GET /idp/clients/{id}` does. A client of another organization is 404; one holding more than the caller may give is 403.',
    permissions: ['API_CLIENTS.WRITE'],
    request: { body: updateApiClientRequest },
    response: ok('The client as changed', apiClientDetails),
    audit: ['client.updated'],
    extension: true,
  },
  rotateApiClientSecret: {
    route: 'POST /idp/clients/{id}/rotateSecret',
    summary: 'Issue a new secret; the previous one keeps working for a grace period (24 h by default)',
    description:
      'Answers the client with a new secret. The previous secret keeps working for the grace period (24 h unless the operator set another), and only the latest previous one does.',
    permissions: ['API_CLIENTS.WRITE'],
    response: {
      status: 200,
      description: 'The client with its new secret',
      body: apiClient,
      secretField: 'clientSecret',
    },
    audit: ['client.secret.rotated'],
    extension: true,
  },
  deleteApiClient: {
    route: 'DELETE /idp/clients/{id}',
    summary: 'Delete an API client: no more tokens at once; tokens it holds are refused within 30 s',
    description:
      'The client authenticates no more at once and the tokens it holds are refused within 30 s; its record stays, marked, for history.',
    permissions: ['API_CLIENTS.WRITE'],
    response: noContent('Deleted'),
    audit: ['client.deleted'],
    extension: true,
  },
});
