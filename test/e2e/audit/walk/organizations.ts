import { publishAgreement } from '../../../../shared/store/consent-repository.js';
import { type WalkCalls, walkCall } from './walk-call.js';

/** A published agreement (operators publish them; no API route does). */
const withAgreement = async () => ({
  agreementId: (await publishAgreement('https://example.com/walk-terms')).id,
});

/** The organizations group's writes: consent, and a read by POST. */
export const ORGANIZATIONS_CALLS: WalkCalls = {
  recordConsent: walkCall({
    prepare: withAgreement,
    path: ({ agreementId }) => `/idp/consent/${agreementId}`,
    target: ({ agreementId }) => agreementId,
  }),
  resolveServicesByIds: walkCall({
    path: () => '/idp/services/by-ids',
    body: (_made, org) => ({ ids: [org.principalId, 'nobody-here'] }),
  }),
};
