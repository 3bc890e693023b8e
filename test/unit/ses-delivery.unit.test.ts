import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { deliverEmail } from '../../shared/email/delivery.js';
import { logger } from '../../shared/http/logger.js';
import type { OutboxEmail } from '../../shared/store/outbox.js';

/**
 * Email delivery through a stand-in for the SES v2 API on localhost: the request SES gets (signed
 * with SigV4, the documented SendEmail body), another attempt on throttling and SES faults, none
 * on a refusal, and logs that name ids, never the address or the message.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const received: Received[] = [];
let answers: number[] = [];

const ses = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    received.push({ path: request.url ?? '', headers: request.headers, body: JSON.parse(body) });
    const status = answers.shift() ?? 200;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(status === 200 ? { MessageId: 'ses-message-1' } : { message: `status ${status}` }),
    );
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
const deliver = () =>
  deliverEmail(EMAIL, { organizationId: 'org-1', createdAt: 1, messageId: 'outbox-1' }, MESSAGE);

// INFO lines on standard output, WARN and ERROR on standard error: both, in the order written.
const written: string[] = [];
for (const stream of [process.stdout, process.stderr])
  vi.spyOn(stream, 'write').mockImplementation((line) => written.push(String(line)) > 0);
const logLines = () => written.filter((line) => line.includes('"email '));

beforeAll(async () => {
  await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
  vi.stubEnv('IDP_SES_SENDER', 'IDP <no-reply@example.com>');
  vi.stubEnv('IDP_SES_ENDPOINT', `http://127.0.0.1:${(ses.address() as AddressInfo).port}`);
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-example');
  reloadConfig();
  logger.setLogLevel('INFO');
});

afterAll(() => {
  ses.close();
  vi.unstubAllEnvs();
  reloadConfig();
});

beforeEach(() => {
  received.length = 0;
  written.length = 0;
});

describe('email delivery through SES', () => {
  it('sends one signed SendEmail request with the message as text', async () => {
    answers = [200];
    await deliver();
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

  it('tries again on throttling and SES faults, up to 3 attempts', async () => {
    answers = [503, 429, 200];
    await deliver();
    expect(received).toHaveLength(3);
    expect(logLines().at(-1)).toMatch(/"email delivered".*"attempts":3/);

    received.length = 0;
    answers = [500, 503, 503, 200];
    await deliver();
    expect(received).toHaveLength(3);
    expect(logLines().at(-1)).toMatch(/"email delivery failed".*"attempts":3/);
    answers = [];
  });

  it('does not try again when SES refuses the message, and the change that sent it stands', async () => {
    answers = [400];
    await expect(deliver()).resolves.toBeUndefined();
    expect(received).toHaveLength(1);
    expect(logLines().at(-1)).toMatch(/"email delivery failed".*"attempts":1/);
  });

  it('never logs the address, the subject or the message', async () => {
    answers = [503, 400];
    await deliver();
    const lines = logLines().join('\n');
    expect(lines).toContain('"messageId":"outbox-1"');
    for (const secret of ['pat@example.com', 'SECRET', MESSAGE.subject]) expect(lines).not.toContain(secret);
  });
});
