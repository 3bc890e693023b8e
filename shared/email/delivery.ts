import { appendFile, chmod, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { config } from '../config.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import type { OutboxEmail, OutboxRef } from '../store/outbox.js';
import type { EmailText } from './messages.js';

/**
 * Delivers an email whose outbox record is committed. Always a log line (ids, never addresses or
 * links). Deployed with a sender identity: handed to the mailer function (functions/mailer.ts) by
 * an asynchronous invocation, and the mailer sends it through Amazon SES; so no answer waits for
 * SES, and "Forgot your password?" answers a known address as soon as an unknown one however slow
 * SES is. Locally: a line in the outbox file (`npm start` sets `<data>/outbox.jsonl`), where a
 * developer reads the emails.
 */
export const deliverEmail = async (
  email: OutboxEmail,
  outbox: OutboxRef,
  message: EmailText,
): Promise<void> => {
  const ids = { type: email.type, organizationId: email.organizationId, userId: email.userId };
  logger.info('email queued', { ...ids, messageId: outbox.messageId });
  const { outboxFile, mailer } = config();
  if (outboxFile) {
    // The links in it sign people in: for the person running the service only.
    await mkdir(dirname(outboxFile), { recursive: true, mode: 0o700 });
    await appendFile(
      outboxFile,
      `${JSON.stringify({ ...email, ...message, createdAt: outbox.createdAt })}\n`,
      { mode: 0o600 },
    );
    // The mode above is a new file's: one an earlier version made readable is closed too.
    await chmod(outboxFile, 0o600);
  }
  if (!mailer) return;
  try {
    // Loaded when the first email goes out: most requests of these functions send none.
    const { handToMailer } = await import('./mailer-queue.js');
    await handToMailer(mailer, { email, outbox, message });
  } catch (error) {
    // The change that caused the email stands; the outbox record and this line are what remain.
    countMetric('EmailDeliveryFailures');
    logger.error('email not handed to the mailer', {
      ...ids,
      messageId: outbox.messageId,
      error: (error as Error).name,
    });
  }
};
