import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { config } from '../config.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import type { OutboxEmail, OutboxRef } from '../store/outbox.js';
import type { EmailText } from './messages.js';
import { type SendEmail, type SesRefusal, sesSender } from './ses.js';

/**
 * Delivers an email whose outbox record is committed. Always a log line (ids, never addresses or
 * links). Deployed with a sender identity: Amazon SES, retried with backoff on throttling, SES
 * faults and network errors, the outcome logged and counted (EmailsDelivered,
 * EmailDeliveryFailures). Locally: a line in the
 * outbox file (`npm start` sets `<data>/outbox.jsonl`), where a developer reads the emails.
 */

const ATTEMPTS = 3;
const FIRST_DELAY_MILLIS = 200;

let send: SendEmail | undefined;

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis));

const sendWithRetries = async (to: string, message: EmailText): Promise<number> => {
  const { ses } = config();
  send ??= sesSender(ses as NonNullable<typeof ses>);
  for (let attempt = 1; ; attempt++) {
    try {
      await send(to, message);
      return attempt;
    } catch (error) {
      // Network failures have no `retryable`: worth another attempt too.
      const retryable = (error as Partial<SesRefusal>).retryable !== false;
      if (!retryable || attempt >= ATTEMPTS) throw Object.assign(error as Error, { attempts: attempt });
      await sleep(FIRST_DELAY_MILLIS * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
    }
  }
};

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
    const attempts = await sendWithRetries(email.to, message);
    countMetric('EmailsDelivered');
    logger.info('email delivered', { ...ids, messageId: outbox.messageId, attempts });
  } catch (error) {
    // The change that caused the email stands; the outbox record and this line are what remain.
    const attempts = (error as { attempts?: number }).attempts ?? ATTEMPTS;
    countMetric('EmailDeliveryFailures');
    logger.error('email delivery failed', {
      ...ids,
      messageId: outbox.messageId,
      attempts,
      error: (error as Error).name,
    });
  }
};
