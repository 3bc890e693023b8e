import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { confirmLogout, logout } from '../../shared/auth/logout.js';
import { submitConsent } from '../../shared/auth/sign-in-step-forms.js';
import { sessionCsrfToken } from '../../shared/pages/forms.js';
import { type Agreement, publishAgreement } from '../../shared/store/consent-repository.js';
import { liveSession } from '../../shared/store/sign-in-state.js';
import { hiddenField } from '../support/browser-session.js';
import { useDatabase } from '../support/database.js';
import {
  authorizationQuery,
  locationOf,
  PASSWORD,
  PagesBrowser,
  requestIdOf,
  signInSetup,
  textOf,
} from '../support/hosted-pages.js';

/**
 * A sign-out ends the browser's half-finished sign-ins too. A person who typed their password (a
 * step-up with prompt=login, here) and stopped at the consent page, then signed out through the
 * confirmation page, cannot be signed in again by whoever uses the browser next: the parked
 * request names no session (the person authenticated in it), so it is the browser binding it is
 * tied to that the sign-out clears.
 */

useDatabase();

let shared: Awaited<ReturnType<typeof signInSetup>>;
let agreement: Agreement;
beforeAll(async () => {
  shared = await signInSetup();
  agreement = await publishAgreement('https://example.com/terms-review-1');
});

const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';

/** The person types their password on a fresh request (prompt=login) and is shown the consent page. */
const parkedAtConsent = async (browser: PagesBrowser) => {
  const form = await browser.get(authorize, authorizationQuery(shared.application.id, { prompt: 'login' }));
  const request = requestIdOf(form);
  const page = await browser.post(submitSignIn, { request, email: shared.user.email, password: PASSWORD });
  expect(textOf(page)).toContain(`value="${agreement.id}"`);
  return request;
};

/** Signs the browser out as the person would: the logout page, then its confirmation form. */
const signOut = async (browser: PagesBrowser) => {
  const cookie = browser.cookies.get('idp-session') ?? '';
  const asked = await browser.get(logout, { client_id: shared.application.id });
  expect(hiddenField(textOf(asked), 'csrf')).toBe(sessionCsrfToken(cookie));
  const done = await browser.post(confirmLogout, {
    csrf: sessionCsrfToken(cookie),
    client_id: shared.application.id,
  });
  expect(done.statusCode).toBe(200);
  expect(textOf(done)).toContain('You are signed out');
  expect(await liveSession(cookie)).toBeUndefined();
  expect(browser.cookies.get('idp-session')).toBeUndefined();
};

describe('a sign-out', () => {
  it('ends the sign-ins the browser left open at a step, so the next user cannot finish them', async () => {
    const browser = new PagesBrowser();
    // The person signs in once (accepting the agreement): a live session.
    const first = await parkedAtConsent(browser);
    const done = await browser.post(submitConsent, {
      request: first,
      decision: 'accept',
      agreement: agreement.id,
    });
    expect(locationOf(done).searchParams.get('code')).toBeTruthy();
    expect(await liveSession(browser.cookies.get('idp-session'))).toBeDefined();

    // A newer agreement; the application asks for the password again (step-up), the person types
    // it and stops at the consent page.
    agreement = await publishAgreement('https://example.com/terms-review-2');
    const positive = await parkedAtConsent(browser);
    // Positive control: accepted while the person is there, it signs in.
    const accepted = await browser.post(submitConsent, {
      request: positive,
      decision: 'accept',
      agreement: agreement.id,
    });
    expect(locationOf(accepted).searchParams.get('code')).toBeTruthy();

    agreement = await publishAgreement('https://example.com/terms-review-3');
    const parked = await parkedAtConsent(browser);
    // The person leaves the consent page and signs out.
    await signOut(browser);

    // Whoever uses the browser next goes back to the consent page and accepts.
    const next = await browser.post(submitConsent, {
      request: parked,
      decision: 'accept',
      agreement: agreement.id,
    });
    expect({
      status: next.statusCode,
      location: next.headers?.location ?? null,
      cookies: next.cookies ?? [],
    }).toEqual({
      status: 400,
      location: null,
      cookies: [],
    });
    expect(textOf(next)).toContain(EXPIRED.replaceAll("'", '&#39;'));
  });

  it('does not end them when nobody was signed in: any site can send a browser to the logout endpoint', async () => {
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(shared.application.id));
    const request = requestIdOf(form);
    // A link of another site, followed in another tab: nobody is signed in there.
    const outsider = await browser.get(logout, {});
    expect(textOf(outsider)).toContain('You are signed out');
    expect(outsider.cookies?.some((cookie) => cookie.startsWith('idp-browser='))).toBe(false);
    const signedIn = await browser.post(submitSignIn, {
      request,
      email: shared.user.email,
      password: PASSWORD,
    });
    expect(signedIn.statusCode).toBe(200);
    expect(textOf(signedIn)).toContain(`value="${agreement.id}"`);
  });
});
