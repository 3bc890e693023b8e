import { idFromLocation } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** A SCIM token of the organization, created through the API. */
const withScimToken = async (service: TestService, org: ClientCaller) => {
  const created = await service.call('POST', '/idp/scimTokens', {
    token: org.token,
    body: { name: 'Walk directory' },
  });
  if (created.status !== 201) throw new Error(`SCIM token not created: ${JSON.stringify(created.body)}`);
  return { tokenId: idFromLocation(created) };
};

/** The SCIM tokens group's writes. */
export const SCIM_TOKENS_CALLS: WalkCalls = {
  createScimToken: walkCall({
    path: () => '/idp/scimTokens',
    body: () => ({ name: 'Walk directory' }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  revokeScimToken: walkCall({
    prepare: withScimToken,
    path: ({ tokenId }) => `/idp/scimTokens/${tokenId}`,
    target: ({ tokenId }) => tokenId,
  }),
};
