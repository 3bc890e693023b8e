import { HOUR_MILLIS, hourOf } from '../shared/audit/digest.js';
import { existingSigningKey } from '../shared/auth/signing-keys.js';
import { logger } from '../shared/http/logger.js';
import { writeHourDigest } from '../shared/store/audit-digests.js';
import { listOrganizations } from '../shared/store/organization-repository.js';

/** Organizations digested side by side: enough to finish in minutes, few enough not to throttle. */
const PARALLEL = 4;

/**
 * Runs once an hour (lib/audit-digests.ts): writes each organization's digest of the hour that
 * ended, for those that recorded anything since their previous digest, which it covers too
 * (shared/audit/digest.ts): an hour a failed run missed is listed by the next. A failed organization
 * is logged and the others go on; the run fails at the end, so Lambda tries it again, and a digest
 * written already is kept (one per hour). `npm run admin -- audit digest` writes one on demand.
 */
export const handler = async (
  event: { time?: string } = {},
): Promise<{ digested: number; failed: number }> => {
  const now = event.time ? Date.parse(event.time) : Date.now();
  const hour = hourOf(now) - HOUR_MILLIS;
  const organizations = await listOrganizations();
  let digested = 0;
  let failed = 0;
  for (let start = 0; start < organizations.length; start += PARALLEL) {
    const results = await Promise.allSettled(
      organizations
        .slice(start, start + PARALLEL)
        .map((organization) => writeHourDigest(organization.id, hour, Date.now(), existingSigningKey)),
    );
    for (const [index, result] of results.entries()) {
      if (result.status === 'fulfilled') digested += result.value ? 1 : 0;
      else {
        failed++;
        logger.error('audit digest not written', {
          organizationId: organizations[start + index]?.id,
          hour,
          error: result.reason as Error,
        });
      }
    }
  }
  logger.info('audit digests written', { hour, digested, failed });
  if (failed > 0)
    throw new Error(`${failed} organizations' digests of ${new Date(hour).toISOString()} failed`);
  return { digested, failed };
};
