import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { storeConfig } from '../config.js';
import { logger } from '../http/logger.js';
import type { JoinEmail } from './user-repository.js';

/**
 * Announces a join email after its outbox item is committed: always a log line (ids, never
 * addresses); locally also a line in the outbox file (`npm start` sets `<data>/outbox.jsonl`),
 * so a developer can read the emails. Deployed, the outbox items in the table are the record:
 * delivery through Amazon SES is not built yet (README, limits).
 */
export const announceJoinEmail = async (email: JoinEmail, now = Date.now()): Promise<void> => {
  logger.info('join email queued', { organizationId: email.organizationId, userId: email.userId });
  const file = storeConfig().outboxFile;
  if (!file) return;
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify({ type: 'JOIN_EMAIL', ...email, createdAt: now })}\n`);
};
