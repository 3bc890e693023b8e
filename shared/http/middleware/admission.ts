import type { MiddlewareObj } from '@middy/core';
import type { RouteDefinition } from '../../api/route-definition.js';
import type { Principal } from '../../auth/principal.js';
import { unauthorized } from '../errors.js';
import { requestState } from '../request-state.js';
import { recordRefusal } from './audit-refusals.js';
import { refuseInactivePrincipal, standingRemembered } from './principal-status.js';
import { refuseKnownOverLimit, refuseOverLimit } from './rate-limit.js';

/**
 * The principal's standing, then the organization's limit: a refused principal answers 401 before
 * a full second answers 429, and a principal this instance knows to be refused (deleted,
 * deactivated, its token voided) uses none of its organization's allowance, so a leaked token
 * cannot exhaust it. Unknown, the standing is read beside the count: one round trip. A principal
 * whose credential was just read from the table (a SCIM secret) has no status to check.
 */
export const admit = async (
  principal: Principal,
  receivedAt: number,
  options: { statusKnown?: boolean } = {},
): Promise<void> => {
  if (options.statusKnown || standingRemembered(principal)) {
    if (!options.statusKnown) await refuseInactivePrincipal(principal);
    await refuseOverLimit(principal, receivedAt);
    return;
  }
  const [status, limit] = await Promise.allSettled([
    options.statusKnown ? Promise.resolve() : refuseInactivePrincipal(principal),
    refuseOverLimit(principal, receivedAt),
  ]);
  if (status.status === 'rejected') throw status.reason;
  if (limit.status === 'rejected') throw limit.reason;
};

/**
 * Admits an authenticated request: its principal is still active and its organization within its
 * rate limit. A write waits for admission before it runs. A read, which changes nothing, runs
 * beside it, so a steady read costs one round trip: its result is answered only once admission is
 * granted, and a refusal takes precedence over any other answer (`awaitAdmission`). A refused
 * write leaves its audit record (audit-refusals.ts).
 */
export const admission = (route: RouteDefinition): MiddlewareObj => ({
  before: async (request) => {
    const state = requestState(request);
    const { principal, receivedAt } = state;
    if (!principal) throw unauthorized();
    // A principal this instance knows to be refused is told so (401: stop) before a second it
    // knows to be full is (429: repeat); neither needs a round trip.
    if (standingRemembered(principal)) await refuseInactivePrincipal(principal);
    refuseKnownOverLimit(principal, receivedAt);
    const admitted = admit(principal, receivedAt);
    if (route.method !== 'GET') {
      await admitted;
      return;
    }
    // Answered by the handler's wrapper or the error response, whichever comes first.
    admitted.catch(() => {});
    state.admission = admitted;
  },
  onError: (request) => recordRefusal(request, route),
});
