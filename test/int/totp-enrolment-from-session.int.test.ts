import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize } from '../../shared/auth/browser-sign-in.js';
import { submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { showTotpEnrolment } from '../../shared/auth/totp-enrolment.js';
import { createSession } from '../../shared/store/sign-in-state.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { useDatabase } from '../support/database.js';
import {
  authorizationQuery,
  locationOf,
  PagesBrowser,
  pendingTotpSecret,
  personWithPassword,
  signInSetup,
  storedTotpSecret,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';

/**
 * A stolen session cookie alone must not be enough to plant a credential of the thief's: adding a
 * passkey needs a sign-in of the last 15 minutes, and so does setting up an authenticator app from
 * a kept session (an organization that turned MFA on after the person signed in). An older
 * session gets the password form, and the person enrols right after the password.
 */

useDatabase();

let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup({ mfaEnabled: true });
});

const MINUTE = 60_000;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A browser holding a live session of a person, who authenticated `age` ms ago with a password alone. */
const browserWithSession = async (age: number) => {
  const user = await personWithPassword(shared.organization.id);
  const now = Date.now();
  // The password was set before that sign-in (a later one would end the session).
  await updateUserAttributes(shared.organization.id, user.id, { credentialsChangedAt: now - age - MINUTE });
  const { cookieValue } = await createSession(
    { organizationId: shared.organization.id, userId: user.id, amr: ['pwd'], authTime: now - age },
    // Used within the last hour (idle), begun `age` ago (its 12 h absolute end counts from then).
    { idleSeconds: 3600, absoluteSeconds: 12 * 3600, endsBy: now - age + 12 * 60 * MINUTE },
    now,
  );
  const browser = new PagesBrowser();
  browser.cookies.set('idp-session', cookieValue);
  return { browser, user };
};

/** Follows the authorization request to the enrolment page and enrols the app whose key it shows. */
const enrolFromSession = async (browser: PagesBrowser) => {
  const answer = await browser.get(authorize, authorizationQuery(shared.application.id));
  if (answer.statusCode !== 303) return { answer, enrolled: false };
  const location = locationOf(answer);
  if (location.pathname !== '/signin/enrol') return { answer, enrolled: false };
  const request = location.searchParams.get('request') ?? '';
  const page = await browser.get(showTotpEnrolment, { request });
  expect(textOf(page)).toContain('Set up two-step verification');
  const secret = await pendingTotpSecret(request);
  const codes = await browser.post(submitTotp, {
    request,
    code: totpCodeAt(secret),
  });
  return { answer: codes, enrolled: textOf(codes).includes('Save your recovery codes') };
};

describe('TOTP enrolment from a live session', () => {
  it('is open to a session of a recent sign-in (positive control), up to 15 minutes old', async () => {
    const { browser, user } = await browserWithSession(14 * MINUTE);
    const { enrolled } = await enrolFromSession(browser);
    expect(enrolled).toBe(true);
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBeDefined();
  });

  it('asks for the password again before an older session plants an authenticator', async () => {
    const { browser, user } = await browserWithSession(16 * MINUTE);
    const { answer, enrolled } = await enrolFromSession(browser);
    expect({
      enrolled,
      secretStored: (await storedTotpSecret(shared.organization.id, user.id)) !== undefined,
      passwordAsked: answer.statusCode === 200 && textOf(answer).includes('name="password"'),
    }).toEqual({ enrolled: false, secretStored: false, passwordAsked: true });
  });

  it('asks for a recent sign-in when the code is confirmed too, not only when enrolment began', async () => {
    const { browser, user } = await browserWithSession(14 * MINUTE);
    const answer = await browser.get(authorize, authorizationQuery(shared.application.id));
    const request = locationOf(answer).searchParams.get('request') ?? '';
    expect(locationOf(answer).pathname).toBe('/signin/enrol');
    const secret = await pendingTotpSecret(request);
    // Two minutes on the enrolment page: the session's sign-in is now 16 minutes old.
    const later = Date.now() + 2 * MINUTE;
    vi.spyOn(Date, 'now').mockReturnValue(later);
    const page = await browser.post(submitTotp, {
      request,
      code: totpCodeAt(secret, later),
    });
    expect(page.statusCode).toBe(400);
    expect(textOf(page)).toContain('To set up two-step verification, sign in again');
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBeUndefined();
  });
});
