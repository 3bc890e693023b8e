import { configureSsoProvider } from '../../../../shared/store/sso-provider-repository.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** An SSO provider serving the organization (operators bind them: the store, as the CLI does). */
const withProvider = async (_service: TestService, org: ClientCaller) => {
  const clientId = `walk-sso.${org.orgId}`;
  await configureSsoProvider(
    { clientId, organizationIds: [org.orgId], clientSecret: 'walk-initial-secret' },
    'walk',
  );
  return { clientId };
};

/** The SSO providers group's writes. */
export const SSO_CALLS: WalkCalls = {
  updateSsoProvider: walkCall({
    prepare: withProvider,
    path: ({ clientId }) => `/idp/sso-providers/${clientId}`,
    body: () => ({ clientSecret: 'walk-rotated-secret', clientSecretExpirationDate: 1_900_000_000_000 }),
    target: ({ clientId }) => clientId,
  }),
};
