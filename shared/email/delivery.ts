import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { config } from '../config.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import type { OutboxEmail, OutboxRef } from '../store/outbox.js';
import type { EmailText } from './messages.js';
import type { SendEmail } from './ses.js';

/**
 * Delivers an email whose outbox record is committed. Always a log line (ids, never addresses or
 * links). Deployed with a sender identity: Amazon SES (the SDK retries throttling, SES faults and
 * network errors), the outcome logged and counted (EmailsDelivered, EmailDeliveryFailures).
 * Locally: a line in the outbox file (`npm start` sets `<data>/outbox.jsonl`), where a developer reads the emails.
 */

let send: SendEmail | undefined;

export const deliverEmail = async (
  email: OutboxEmail,
  outbox: OutboxRef,
  message: EmailText,
): Promise<void> => {
  const ids = { type: email.type, organizationId: email.organizationId, userId: email.userId };
  logger.info('email queued', { ...ids, messageId: outbox.messageId });
  const { outboxFile, ses } = config();
  if (outboxFile) {
    await mkdir(dirname(outboxFile), { recursive: true });
    await appendFile(
      outboxFile,
      `${JSON.stringify({ ...email, ...message, createdAt: outbox.createdAt })}\n`,
    );
  }
  if (!ses) return;
  try {
    // Loaded when the first email goes out: most requests of these functions send none.
    const { sesSender } = await import('./ses.js');
    send ??= sesSender(ses);
    const { attempts } = await send(email.to, message);
    countMetric('EmailsDelivered');
    logger.info('email delivered', { ...ids, messageId: outbox.messageId, attempts });
  } catch (error) {
    // The change that caused the email stands; the outbox record and this line are what remain.
    const attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
    countMetric('EmailDeliveryFailures');
    logger.error('email delivery failed', {
      ...ids,
      messageId: outbox.messageId,
      attempts,
      error: (error as Error).name,
    });
  }
};
