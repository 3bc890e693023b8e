import { request } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { useService } from '../support/service.js';

// DECISIONS.md: at most 20 sign-in attempts a minute per client IP (vitest.config.ts raises it
// for the other sign-in tests, which all come from 127.0.0.1).
process.env.IDP_SIGNIN_ATTEMPTS_PER_MINUTE = '20';

const service = useService();

/** Posts the sign-in form from a given loopback address, as a client there would. */
const postFrom = (localAddress: string, path: string) =>
  new Promise<{ status: number; retryAfter: string | undefined; body: string }>((resolve, reject) => {
    const url = new URL(path, service.baseUrl);
    const body = 'request=unknown&email=a%40example.com&password=wrong+password+here';
    const outgoing = request(
      url,
      {
        method: 'POST',
        localAddress,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            body: text,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });

describe('sign-in attempts per client address', () => {
  it('answers the 21st attempt of a minute with a 429 page, for that address only', async () => {
    // The service counts attempts per minute of its clock (this process's): the clock stands still
    // for the test, so no minute turns over in the middle of it (only Date is faked).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const answers = [];
      for (let attempt = 0; attempt < 20; attempt++) {
        answers.push(await postFrom('127.0.0.9', attempt % 2 ? '/signin' : '/signin/totp'));
      }
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(400));
      const throttled = await postFrom('127.0.0.9', '/signin/forgot');
      expect(throttled.status).toBe(429);
      expect(throttled.retryAfter).toBe('60');
      expect(throttled.body).toContain('too many sign-in attempts from your network');
      expect((await postFrom('127.0.0.10', '/signin')).status).toBe(400);
      // The next minute starts afresh.
      vi.advanceTimersByTime(60_000);
      expect((await postFrom('127.0.0.9', '/signin')).status).toBe(400);
    } finally {
      vi.useRealTimers();
    }
  });
});
