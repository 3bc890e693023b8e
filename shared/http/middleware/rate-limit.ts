import type { Principal } from '../../auth/principal.js';
import { ExpiringCache } from '../../cache/expiring-cache.js';
import { DEFAULT_RATE_LIMIT, epochSecondOf, type RateLimitSettings } from '../../domain/rate-limit.js';
import { countMetric } from '../../observability/metrics.js';
import { getRateLimitOverride } from '../../store/organization-repository.js';
import { admitRequest, knownFull } from '../../store/rate-limit-store.js';
import { tooManyRequests } from '../errors.js';

const SETTINGS_CACHE_MILLIS = 60_000;
const settingsCache = new ExpiringCache<string, RateLimitSettings>();

/**
 * The organization's override, or the contract default. Read once per instance, then refreshed
 * in the background every minute, so a contract change applies within about a minute and no
 * request after the first waits for it.
 */
const settingsOf = (orgId: string): Promise<RateLimitSettings> =>
  settingsCache.getRefreshing(
    orgId,
    SETTINGS_CACHE_MILLIS,
    async () => (await getRateLimitOverride(orgId)) ?? DEFAULT_RATE_LIMIT,
  );

const refuse = () => {
  countMetric('RateLimited');
  return tooManyRequests();
};

/** Refuses at once, without I/O, a request of a second this instance already saw full. */
export const refuseKnownOverLimit = (principal: Principal, receivedAt: number): void => {
  if (knownFull(principal.organizationId, epochSecondOf(receivedAt))) throw refuse();
};

/** Counts the request against its organization's second (the second API Gateway received it). */
export const refuseOverLimit = async (principal: Principal, receivedAt: number): Promise<void> => {
  const orgId = principal.organizationId;
  if (!(await admitRequest(orgId, epochSecondOf(receivedAt), await settingsOf(orgId)))) throw refuse();
};
