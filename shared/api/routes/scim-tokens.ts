import {
  createdScimToken,
  createScimTokenRequest,
  scimTokenList,
  scimTokenPath,
} from '../../schemas/scim-tokens.js';
import { noContent, ok, routeGroup } from '../route-definition.js';

/** SCIM bearer secrets (issue 27): what directories such as Okta and Entra ID send to /scim/v2. */
export const scimTokensRoutes = routeGroup('scim-tokens')({
  listScimTokens: {
    route: 'GET /idp/scimTokens',
    summary: "The organization's SCIM tokens, newest first (never their values)",
    description:
      "The caller's organization's live SCIM bearer secrets, newest first (at most 20): id, name, when and by whom each was created. Neither a value nor anything derived from one is ever shown again after its creation.",
    permissions: ['SCIM.ADMIN'],
    response: ok('The live tokens, newest first', scimTokenList),
    extension: true,
  },
  createScimToken: {
    route: 'POST /idp/scimTokens',
    summary: 'Create a SCIM bearer secret for a directory; the answer carries its value, once',
    description:
      'Creates a long-lived bearer secret a directory (Okta, Microsoft Entra ID) sends to `/scim/v2` as `Authorization: Bearer <token>`. Answers 201 with `Location` and the value, which is shown this once and stored only as a digest. An organization has at most 20 live tokens (409 beyond). A repeat with the same `Idempotency-Key` cannot show the value again: it answers 409 naming the token, which can be revoked.',
    permissions: ['SCIM.ADMIN'],
    request: { body: createScimTokenRequest },
    response: {
      status: 201,
      description: 'Created; Location names it; `token` is its value, shown this once',
      body: createdScimToken,
      location: true,
      secretField: 'token',
    },
    audit: ['scimToken.created'],
    extension: true,
  },
  revokeScimToken: {
    route: 'DELETE /idp/scimTokens/{id}',
    summary: 'Revoke a SCIM token: its value is refused from the next request on',
    description:
      'Revokes the token: `/scim/v2` refuses its value from the next request on. A token of another organization, or one revoked already, is 404 like an unknown id.',
    permissions: ['SCIM.ADMIN'],
    request: { path: scimTokenPath },
    response: noContent('Revoked'),
    audit: ['scimToken.revoked'],
    extension: true,
  },
});
