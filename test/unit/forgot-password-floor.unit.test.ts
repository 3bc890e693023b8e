import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * "Forgot your password?" answers an email that has no account no sooner than one that has: both
 * after the same floor from when the request arrived. Timers and Date are faked and the store is
 * stubbed, so the floor is read off the clock the handler uses, not measured on this machine.
 */

const KNOWN = 'ada@example.com';
/** How long issuing and sending the link takes for the known email, on the faked clock. */
const ISSUING_MILLIS = 150;

vi.mock('../../shared/auth/sign-in-requests.js', () => ({
  pendingRequestOf: async () => ({ id: 'request-1', organizationId: 'org-1' }),
  tooManyAttempts: async () => false,
}));
vi.mock('../../shared/store/organization-repository.js', () => ({
  getOrganization: async () => ({ name: 'Example Org' }),
}));
vi.mock('../../shared/store/user-repository.js', () => ({
  findUserByEmail: async (_organizationId: string, email: string) =>
    email === KNOWN
      ? { id: 'u1', organizationId: 'org-1', email: KNOWN, name: 'Ada', status: 'ACTIVE' }
      : undefined,
}));
vi.mock('../../shared/store/credentials.js', () => ({
  issueResetLink: async () => {
    await new Promise((resolve) => setTimeout(resolve, ISSUING_MILLIS));
    return { token: 'link-token', outbox: {} };
  },
  livePasswordLink: async () => undefined,
  setPasswordWithLink: async () => undefined,
}));
vi.mock('../../shared/email/account-emails.js', () => ({
  INVITATION_PATH: '/signin/invitation',
  RESET_PATH: '/signin/reset',
  sendAccountEmail: async () => undefined,
}));

const { submitForgotPassword } = await import('../../shared/auth/password-links.js');

const forgotForm = (email: string) =>
  ({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: 'request-1', email }).toString(),
    isBase64Encoded: false,
    cookies: [],
    requestContext: { http: { sourceIp: '192.0.2.1' } },
  }) as unknown as APIGatewayProxyEventV2;

/** Whether the answer was given 1 ms before the floor and at it, on the faked clock, and the answer. */
const answerAroundFloor = async (email: string) => {
  const answer = submitForgotPassword(forgotForm(email));
  let answered = false;
  void answer.then(() => {
    answered = true;
  });
  await vi.advanceTimersByTimeAsync(399);
  const beforeFloor = answered;
  await vi.advanceTimersByTimeAsync(1);
  const atFloor = answered;
  await vi.runAllTimersAsync();
  return { beforeFloor, atFloor, page: await answer };
};

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('POST /signin/forgot', () => {
  it('answers an email with an account at 400 ms from the request, its work included', async () => {
    const known = await answerAroundFloor(KNOWN);
    expect([known.beforeFloor, known.atFloor]).toEqual([false, true]);
    expect(known.page.statusCode).toBe(200);
  });

  it('answers an email without one at the same 400 ms, with the same page', async () => {
    const [known, unknown] = [await answerAroundFloor(KNOWN), await answerAroundFloor('nobody@example.com')];
    expect([unknown.beforeFloor, unknown.atFloor]).toEqual([false, true]);
    expect(unknown.page).toEqual(known.page);
  });
});
