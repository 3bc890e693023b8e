import { expect, it } from 'vitest';
import { useService } from '../support/service.js';

/**
 * The console's page as a browser gets it (shared/console/console-page.ts): its own origin's one
 * script and stylesheet only, never framed, kept by no cache, and alone in its browsing context
 * group: a page of another origin that opened it (or that it opened) holds no handle to it.
 */
const service = useService();

it('is served with the headers OWASP asks of a page holding tokens', async () => {
  const answer = await fetch(`${service.baseUrl}/console/${service.admin.orgId}`);
  expect(answer.status).toBe(200);
  expect(
    Object.fromEntries([...answer.headers].filter(([name]) => name !== 'date' && !name.startsWith('x-amzn'))),
  ).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
  });
});
