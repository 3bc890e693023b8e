import type { SignatureV4 } from '@smithy/signature-v4';
import { signedFetch, signerFor } from '../aws/request-signing.js';
import type { EmailText } from './messages.js';

/**
 * Amazon SES v2 `SendEmail` over a signed fetch (one operation: the SDK client would add tens of
 * kilobytes to each function that sends mail). Answers SES's message id.
 */

/** SES refused the message (`retryable`: throttling or its own fault, worth another attempt). */
export interface SesRefusal extends Error {
  retryable: boolean;
}

export type SendEmail = (to: string, message: EmailText) => Promise<string>;

export const sesSender = (options: { sender: string; endpoint?: string; region?: string }): SendEmail => {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const url = new URL(
    '/v2/email/outbound-emails',
    options.endpoint ?? `https://email.${region}.amazonaws.com`,
  );
  let signer: SignatureV4 | undefined;
  return async (to, message) => {
    signer ??= signerFor('ses', region);
    const response = await signedFetch(signer, url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        FromEmailAddress: options.sender,
        Destination: { ToAddresses: [to] },
        Content: {
          Simple: {
            Subject: { Data: message.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
          },
        },
      }),
    });
    const body = (await response.json().catch(() => ({}))) as { MessageId?: string; message?: string };
    if (!response.ok) {
      const refusal = new Error(body.message ?? `SES answered ${response.status}`) as SesRefusal;
      refusal.retryable = response.status === 429 || response.status >= 500;
      throw refusal;
    }
    return String(body.MessageId ?? '');
  };
};
