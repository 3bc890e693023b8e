import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/mailer.js';
import { reloadConfig } from '../../shared/config.js';
import { deliverEmail } from '../../shared/email/delivery.js';
import { logger } from '../../shared/http/logger.js';
import type { OutboxEmail } from '../../shared/store/outbox.js';

/**
 * Email delivery as deployed: a request function hands the email to the mailer function by an
 * asynchronous invocation (a stand-in for the Lambda API on localhost), and never waits for SES;
 * the mailer sends it through a stand-in for the SES v2 API (signed with SigV4, the documented
 * SendEmail body), tries again on throttling and SES faults, not on a refusal, and fails its
 * invocation (for Lambda to try again) only when SES kept failing. Logs name ids, never the
 * address or the message.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const received: Received[] = [];
let answers: number[] = [];
/** While set, SES answers nothing until it is called: an SES slower than any request should wait. */
let holdSes: Promise<void> | undefined;

const ses = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', async () => {
    received.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(body) });
    await holdSes;
    const status = answers.shift() ?? 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(status === 200 ? { MessageId: 'ses-message-1' } : { message: `status ${status}` }),
    );
  });
});

/** A stand-in for the Lambda API: what it was asked to invoke, answered with `lambdaAnswers`. */
const invoked: Received[] = [];
let lambdaAnswers: number[] = [];
const lambda = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    invoked.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(body) });
    const status = lambdaAnswers.shift() ?? 202;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(status === 202 ? '' : JSON.stringify({ message: `status ${status}` }));
  });
});

const EMAIL: OutboxEmail = {
  type: 'PASSWORD_RESET_EMAIL',
  organizationId: 'org-1',
  userId: 'user-1',
  to: 'pat@example.com',
  name: 'Pat',
};
const MESSAGE = {
  subject: 'Choose a new password',
  text: 'Open https://idp.example.com/signin/reset?token=SECRET',
};
const OUTBOX = { organizationId: 'org-1', createdAt: 1, messageId: 'outbox-1' };
const deliver = () => deliverEmail(EMAIL, OUTBOX, MESSAGE);
/** The mailer function, invoked as Lambda would with what `deliver` hands over. */
const mail = () => handler({ email: EMAIL, outbox: OUTBOX, message: MESSAGE });

// INFO lines on standard output, WARN and ERROR on standard error: both, in the order written.
const written: string[] = [];
for (const stream of [process.stdout, process.stderr])
  vi.spyOn(stream, 'write').mockImplementation((line) => written.push(String(line)) > 0);
const logLines = () => written.filter((line) => line.includes('"email '));

beforeAll(async () => {
  await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => lambda.listen(0, '127.0.0.1', resolve));
  vi.stubEnv('IDP_SES_SENDER', 'IDP <no-reply@example.com>');
  vi.stubEnv('IDP_SES_ENDPOINT', `http://127.0.0.1:${(ses.address() as AddressInfo).port}`);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-example');
  vi.stubEnv('IDP_MAILER_FUNCTION', 'idp-mailer');
  vi.stubEnv('IDP_LAMBDA_ENDPOINT', `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`);
  reloadConfig();
  logger.setLogLevel('INFO');
});

afterAll(() => {
  ses.close();
  lambda.close();
  vi.unstubAllEnvs();
  reloadConfig();
});

beforeEach(() => {
  received.length = 0;
  invoked.length = 0;
  written.length = 0;
});

describe('the mailer function: sends through SES', () => {
  it('sends one signed SendEmail request with the message as text', async () => {
    answers = [200];
    await mail();
    expect(invoked).toEqual([]);
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request.path).toBe('/v2/email/outbound-emails');
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/ses\/aws4_request, SignedHeaders=\S*host\S*, Signature=[0-9a-f]{64}$/,
    );
    expect(request.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(request.body).toEqual({
      FromEmailAddress: 'IDP <no-reply@example.com>',
      Destination: { ToAddresses: ['pat@example.com'] },
      Content: {
        Simple: {
          Subject: { Data: MESSAGE.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: MESSAGE.text, Charset: 'UTF-8' } },
        },
      },
    });
    expect(logLines().at(-1)).toContain('"message":"email delivered"');
  });

  it('tries again on throttling and SES faults, up to 3 attempts, then fails the invocation so that Lambda tries again', async () => {
    answers = [503, 429, 200];
    await mail();
    expect(received).toHaveLength(3);
    expect(logLines().at(-1)).toMatch(/"email delivered".*"attempts":3/);

    received.length = 0;
    answers = [500, 503, 503, 200];
    await expect(mail()).rejects.toThrow();
    expect(received).toHaveLength(3);
    expect(logLines().at(-1)).toMatch(/"email delivery failed".*"attempts":3/);
    answers = [];
  });

  it('does not try again when SES refuses the message, nor has Lambda try again', async () => {
    answers = [400];
    await expect(mail()).resolves.toBeUndefined();
    expect(received).toHaveLength(1);
    expect(logLines().at(-1)).toMatch(/"email delivery failed".*"attempts":1/);
  });

  it('never logs the address, the subject or the message', async () => {
    answers = [503, 400];
    await mail();
    const lines = logLines().join('\n');
    expect(lines).toContain('"messageId":"outbox-1"');
    for (const secret of ['pat@example.com', 'SECRET', MESSAGE.subject]) expect(lines).not.toContain(secret);
  });
  it('sends nothing for an event it cannot read, and logs no part of it', async () => {
    await expect(handler({ email: { to: 'pat@example.com' }, message: MESSAGE })).resolves.toBeUndefined();
    expect(received).toEqual([]);
    const lines = written.join('\n');
    expect(lines).toContain('mailer event unreadable');
    for (const secret of ['pat@example.com', 'SECRET']) expect(lines).not.toContain(secret);
  });
});

describe('a request function: hands the email to the mailer', () => {
  it('hands the email over in one asynchronous invocation and does not wait for SES', async () => {
    let releaseSes = () => {};
    holdSes = new Promise((resolve) => {
      releaseSes = resolve;
    });
    try {
      // Resolves while SES would still be answering: SES is not on the request's path at all.
      await deliver();
      expect(received).toEqual([]);
    } finally {
      releaseSes();
      holdSes = undefined;
    }
    expect(invoked).toHaveLength(1);
    const [invocation] = invoked as [Received];
    expect(invocation.path).toBe('/2015-03-31/functions/idp-mailer/invocations');
    expect(invocation.headers['x-amz-invocation-type']).toBe('Event');
    expect(invocation.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/lambda\//,
    );
    expect(invocation.body).toEqual({
      email: EMAIL,
      outbox: { organizationId: 'org-1', createdAt: 1, messageId: 'outbox-1' },
      message: MESSAGE,
    });
    expect(logLines().join('\n')).toContain('"message":"email queued"');
  });

  it('keeps the change when the hand-over fails, and logs ids only', async () => {
    lambdaAnswers = [500, 503, 503];
    await expect(deliver()).resolves.toBeUndefined();
    expect(invoked).toHaveLength(3);
    const lines = logLines().join('\n');
    expect(lines).toContain('"message":"email not handed to the mailer"');
    for (const secret of ['pat@example.com', 'SECRET', MESSAGE.subject]) expect(lines).not.toContain(secret);
    lambdaAnswers = [];
  });
});
