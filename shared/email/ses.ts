import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import type { EmailText } from './messages.js';

export type SendEmail = (to: string, message: EmailText) => Promise<{ messageId: string; attempts: number }>;

/**
 * Amazon SES v2 `SendEmail` through the SDK, which retries throttling, SES faults and network
 * errors (3 attempts) and not refusals. Region and credentials from the SDK's default chain.
 */
export const sesSender = (options: { sender: string; endpoint?: string }): SendEmail => {
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
