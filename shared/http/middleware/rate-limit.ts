import type { MiddlewareObj } from '@middy/core';
import { ExpiringCache } from '../../cache/expiring-cache.js';
import { DEFAULT_RATE_LIMIT, epochSecondOf, type RateLimitSettings } from '../../domain/rate-limit.js';
import { countMetric } from '../../observability/metrics.js';
import { getRateLimitOverride } from '../../store/organization-repository.js';
import { admitRequest } from '../../store/rate-limit-store.js';
import { tooManyRequests, unauthorized } from '../errors.js';
import { requestState } from '../request-state.js';

const SETTINGS_CACHE_MILLIS = 60_000;
const settingsCache = new ExpiringCache<string, RateLimitSettings>();

/** The organization's override, or the contract default; cached per instance for a minute. */
const settingsOf = (orgId: string): Promise<RateLimitSettings> =>
  settingsCache.get(
    orgId,
    SETTINGS_CACHE_MILLIS,
    async () => (await getRateLimitOverride(orgId)) ?? DEFAULT_RATE_LIMIT,
  );

/** Counts the request against its organization's second (the second API Gateway received it). */
export const rateLimit = (): MiddlewareObj => ({
  before: async (request) => {
    const { principal, receivedAt } = requestState(request);
    if (!principal) throw unauthorized();
    const orgId = principal.organizationId;
    if (!(await admitRequest(orgId, epochSecondOf(receivedAt), () => settingsOf(orgId)))) {
      countMetric('RateLimited');
      throw tooManyRequests();
    }
  },
});
