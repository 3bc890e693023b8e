import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { logger } from '../http/logger.js';
import type { JoinEmail } from './user-repository.js';

/**
 * After the outbox item is committed: locally (`IDP_OUTBOX_FILE`, set by `npm start` to
 * `<data>/outbox.jsonl`), the message is also appended there; it is always logged (by ids, not addresses), so a developer can read the join
 * emails. Deployed, the outbox items in the table are the record; delivery through Amazon SES is
 * not built yet (README, limits).
 */
export const announceJoinEmail = async (email: JoinEmail, now = Date.now()): Promise<void> => {
  logger.info('join email queued', { organizationId: email.organizationId, userId: email.userId });
  const file = process.env.IDP_OUTBOX_FILE;
  if (!file) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify({ type: 'JOIN_EMAIL', ...email, createdAt: now })}\n`);
};
