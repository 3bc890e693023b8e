import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { awsRequestHandler } from '../aws/request-timeouts.js';
import type { Config } from '../config.js';
import type { OutboxEmail, OutboxRef } from '../store/outbox.js';
import type { EmailText } from './messages.js';

/** What a request function hands the mailer: the outbox record's fields and the message itself. */
export interface QueuedEmail {
  email: OutboxEmail;
  outbox: OutboxRef;
  message: EmailText;
}

type Mailer = NonNullable<Config['mailer']>;

let built: { endpoint: string | undefined; client: LambdaClient } | undefined;
const lambdaClient = ({ endpoint }: Mailer): LambdaClient => {
  if (built && built.endpoint === endpoint) return built.client;
  const client = new LambdaClient({ ...(endpoint ? { endpoint } : {}), requestHandler: awsRequestHandler() });
  built = { endpoint, client };
  return client;
};

/**
 * Invokes the mailer asynchronously (`InvocationType: Event`): Lambda queues the event and answers
 * 202 at once, then runs the mailer, retrying it if it fails (lib/idp-stack.ts). The event carries
 * the link (for a join or reset email, a credential) through Lambda's own queue only, never into a
 * log or a record.
 */
export const handToMailer = async (mailer: Mailer, queued: QueuedEmail): Promise<void> => {
  const answer = await lambdaClient(mailer).send(
    new InvokeCommand({
      FunctionName: mailer.functionName,
      InvocationType: 'Event',
      Payload: new TextEncoder().encode(JSON.stringify(queued)),
    }),
  );
  if (answer.StatusCode !== 202) throw new Error(`the mailer's invocation answered ${answer.StatusCode}`);
};
