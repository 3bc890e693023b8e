import { EMAIL_TYPES } from '../shared/email/messages.js';
import { sendThroughSes } from '../shared/email/ses.js';
import { logger } from '../shared/http/logger.js';
import * as z from '../shared/zod.js';

/** The event a request function hands over (shared/email/mailer-queue.ts); only they may invoke it. */
const queuedEmail = z.strictObject({
  email: z.strictObject({
    type: z.enum(EMAIL_TYPES),
    organizationId: z.string(),
    userId: z.string(),
    to: z.string(),
    name: z.string(),
  }),
  outbox: z.strictObject({ organizationId: z.string(), createdAt: z.number(), messageId: z.string() }),
  message: z.strictObject({ subject: z.string(), text: z.string() }),
});

/**
 * Sends one email through Amazon SES, invoked asynchronously by the functions whose requests cause
 * emails, so that no answer waits for SES. When SES still fails after the SDK's own attempts, the
 * error goes back to Lambda, which tries the event again (twice, within the hour: lib/idp-stack.ts),
 * except for a refusal (4xx: the address or the message), which another attempt would not change.
 */
export const handler = async (event: unknown): Promise<void> => {
  const queued = queuedEmail.safeParse(event);
  if (!queued.success) {
    logger.error('mailer event unreadable: not sent', { issues: queued.error.issues.length });
    return;
  }
  try {
    await sendThroughSes(queued.data);
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const refused = status !== undefined && status >= 400 && status < 500 && status !== 429;
    if (!refused) throw error;
  }
};
