import { withAuditScope } from '../audit/scope.js';
import { logger } from '../http/logger.js';
import { writeAuditRecord } from '../store/audit-records.js';
import { type ClientMinute, IssuedTokenCounts } from './issued-token-counts.js';
import type { KnownClient } from './oauth-error.js';

/**
 * The `token.issued` records of this instance (docs/audit.md, "Token records"): tokens are
 * counted in memory, and the counts of minutes that ended are written when the next token request
 * starts, beside it, never before its answer. A Lambda instance is frozen between invocations, so
 * a minute's counts wait for the instance's next token request; those of an instance reclaimed
 * meanwhile are lost.
 */

const counts = new IssuedTokenCounts();
let writing: Promise<void> = Promise.resolve();

/** Counts a client-credentials token: memory only. */
export const countIssuedToken = (client: KnownClient, now = Date.now()): void => counts.count(client, now);

/** One record of a client's minute, by the client, timed at the minute's start. */
const recordMinute = (entry: ClientMinute) =>
  withAuditScope({ actor: { type: 'client', id: entry.id } }, () =>
    writeAuditRecord(
      {
        organizationId: entry.organizationId,
        action: 'token.issued',
        targets: [{ type: 'client', id: entry.id }],
        count: entry.count,
      },
      entry.minute,
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
 * written already. Best effort: a failure is logged with its count. Its promise never rejects;
 * the token endpoint does not wait for it.
 */
export const recordEndedMinutes = (now = Date.now()): Promise<void> => {
  const ended = counts.takeEnded(now);
  if (ended.length > 0) {
    writing = writing.then(() => Promise.all(ended.map(recordMinute))).then(() => undefined);
  }
  return writing;
};
