import { withAuditScope } from '../audit/scope.js';
import { logger } from '../http/logger.js';
import { writeAuditRecord } from '../store/audit-records.js';
import { type ClientMinute, IssuedTokenCounts } from './issued-token-counts.js';
import type { KnownClient } from './oauth-error.js';

/**
 * The `token.issued` records of this instance (docs/audit.md, "Token records"): tokens are
 * counted in memory, and the counts of minutes that ended are written when the next token request
 * starts, beside its own work; it answers once they are written. A Lambda instance is frozen between invocations, so
 * a minute's counts wait for the instance's next token request; those of an instance reclaimed
 * meanwhile are lost.
 */

const counts = new IssuedTokenCounts();
let writing: Promise<void> = Promise.resolve();

/** Counts a client-credentials token: memory only. */
export const countIssuedToken = (client: KnownClient, now = Date.now()): void => counts.count(client, now);

/**
 * One record of a client's minute, by the client, timed when written and naming its minute: a
 * record timed at its minute could land in an hour whose digest was written meanwhile, which
 * `audit verify` would then rightly call unlisted.
 */
const recordMinute = (entry: ClientMinute, now: number) =>
  withAuditScope({ actor: { type: 'client', id: entry.id } }, () =>
    writeAuditRecord(
      {
        organizationId: entry.organizationId,
        action: 'token.issued',
        targets: [{ type: 'client', id: entry.id }],
        count: entry.count,
        minute: entry.minute,
      },
      now,
    ),
  ).then(
    () => undefined,
    (error: unknown) =>
      logger.warn('token.issued record not written', {
        clientId: entry.id,
        organizationId: entry.organizationId,
        minute: new Date(entry.minute).toISOString(),
        count: entry.count,
        error: error as Error,
      }),
  );

/**
 * Writes the records of every minute that ended before `now`, one per client, after those being
 * written already. Best effort: a failure is logged with its count. Its promise never rejects.
 */
export const recordEndedMinutes = (now = Date.now()): Promise<void> => {
  const ended = counts.takeEnded(now);
  if (ended.length > 0) {
    writing = writing
      .then(() => Promise.all(ended.map((entry) => recordMinute(entry, now))))
      .then(() => undefined);
  }
  return writing;
};
