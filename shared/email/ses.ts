import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import { config } from '../config.js';
import { logger } from '../http/logger.js';
import { countMetric } from '../observability/metrics.js';
import type { QueuedEmail } from './mailer-queue.js';
import type { EmailText } from './messages.js';

type SendEmail = (to: string, message: EmailText) => Promise<{ messageId: string; attempts: number }>;

/**
 * Amazon SES v2 `SendEmail` through the SDK, which retries throttling, SES faults and network
 * errors (3 attempts) and not refusals. Region and credentials from the SDK's default chain.
 */
const sesSender = (options: { sender: string; endpoint?: string }): SendEmail => {
  const client = new SESv2Client({
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    requestHandler: awsRequestHandler(),
  });
  return async (to, message) => {
    const output = await client.send(
      new SendEmailCommand({
        FromEmailAddress: options.sender,
        Destination: { ToAddresses: [to] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
          },
        },
      }),
    );
    return { messageId: output.MessageId ?? '', attempts: output.$metadata.attempts ?? 1 };
  };
};

let send: SendEmail | undefined;

/**
 * The mailer's send (functions/mailer.ts): the outcome logged (ids, never the address or the
 * message) and counted (EmailsDelivered, EmailDeliveryFailures). Throws what SES last answered
 * when it fails, after logging it.
 */
export const sendThroughSes = async ({ email, outbox, message }: QueuedEmail): Promise<void> => {
  const { ses } = config();
  if (!ses) throw new Error('IDP_SES_SENDER is not set: no sender identity to send from');
  const ids = {
    type: email.type,
    organizationId: email.organizationId,
    userId: email.userId,
    messageId: outbox.messageId,
  };
  try {
    send ??= sesSender(ses);
    const { attempts } = await send(email.to, message);
    countMetric('EmailsDelivered');
    logger.info('email delivered', { ...ids, attempts });
  } catch (error) {
    const attempts = (error as { $metadata?: { attempts?: number } }).$metadata?.attempts ?? 1;
    countMetric('EmailDeliveryFailures');
    logger.error('email delivery failed', { ...ids, attempts, error: (error as Error).name });
    throw error;
  }
};
