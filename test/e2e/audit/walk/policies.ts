import { randomUUID } from 'node:crypto';
import { idFromLocation, putTestPolicy } from '../../../support/service.js';
import { type ClientCaller, type TestService, type WalkCalls, walkCall } from './walk-call.js';

/** A policy of the organization, made by the store. */
const withPolicy = async (_service: TestService, org: ClientCaller) => ({
  policyId: await putTestPolicy(org.orgId),
});

/** The policies group's writes (spec 4.4). */
export const POLICIES_CALLS: WalkCalls = {
  createPolicy: walkCall({
    path: () => '/idp/policies',
    body: () => ({ name: `Walk policy ${randomUUID().slice(0, 8)}` }),
    target: (_made, answer) => idFromLocation(answer),
  }),
  renamePolicy: walkCall({
    prepare: withPolicy,
    path: ({ policyId }) => `/idp/policies/${policyId}`,
    body: () => ({ name: `Walk renamed ${randomUUID().slice(0, 8)}` }),
    target: ({ policyId }) => policyId,
  }),
  archivePolicy: walkCall({
    prepare: withPolicy,
    path: ({ policyId }) => `/idp/policies/${policyId}`,
    target: ({ policyId }) => policyId,
  }),
};
