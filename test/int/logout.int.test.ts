import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { signJws } from '../../shared/auth/compact-jwt.js';
import { confirmLogout, logout } from '../../shared/auth/logout.js';
import { exchangeAuthorizationCode } from '../../shared/auth/sign-in-tokens.js';
import { currentSigningKey } from '../../shared/auth/signing-keys.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric } from '../../shared/observability/metrics.js';
import { sessionCsrfToken } from '../../shared/pages/forms.js';
import { liveSession } from '../../shared/store/sign-in-state.js';
import { auditTrail } from '../support/audit.js';
import { hiddenField } from '../support/browser-session.js';
import { useDatabase } from '../support/database.js';
import {
  AFTER_LOGOUT,
  alertOf,
  authorizationQuery,
  locationOf,
  PASSWORD,
  PagesBrowser,
  REDIRECT,
  requestIdOf,
  signInSetup,
  textOf,
  VERIFIER,
} from '../support/hosted-pages.js';

/**
 * RP-Initiated Logout (shared/auth/logout.ts): an ID token hint of this very session signs out at
 * once; anything else asks the person on a page whose form is bound to the session. Each refusal
 * starts from the request done right.
 */

vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));

useDatabase();

let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup();
});

afterEach(() => {
  vi.mocked(countMetric).mockClear();
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A browser signed in to the application; answers it with the ID token its code was exchanged for. */
const signedIn = async () => {
  const browser = new PagesBrowser();
  const form = await browser.get(authorize, authorizationQuery(shared.application.id));
  const done = await browser.post(submitSignIn, {
    request: requestIdOf(form),
    email: shared.user.email,
    password: PASSWORD,
  });
  const tokens = await exchangeAuthorizationCode(
    shared.application,
    new URLSearchParams({
      code: locationOf(done).searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      code_verifier: VERIFIER,
    }),
  );
  return { browser, idToken: tokens.id_token, accessToken: tokens.access_token };
};

const sessionOf = (browser: PagesBrowser) => liveSession(browser.cookies.get('idp-session'));

/** The `session.ended` records of sign-outs from this browser. */
const signOutsOf = async (browser: PagesBrowser) =>
  (await auditTrail(shared.organization.id, { action: 'session.ended' })).filter(
    (record) => record.actor.ip === browser.sourceIp,
  );

/** An ID token signed with the service's own key, of these claims. */
const ownToken = async (claims: Record<string, unknown>) => {
  const now = Math.floor(Date.now() / 1000);
  return signJws(
    await currentSigningKey(),
    { typ: 'JWT' },
    { iss: 'http://localhost', iat: now, exp: now + 600, ...claims },
  );
};

/** Both the session and the browser binding its open sign-ins are tied to (sign-out-open-sign-ins.int). */
const CLEARED = [
  'idp-session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
  'idp-browser=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
];

describe('logout with an ID token hint of this session', () => {
  it('signs out at once and goes back to the registered URI with the state', async () => {
    const { browser, idToken } = await signedIn();
    const info = vi.spyOn(logger, 'info');
    vi.mocked(countMetric).mockClear();
    const page = await browser.get(logout, {
      id_token_hint: idToken,
      client_id: shared.application.id,
      post_logout_redirect_uri: AFTER_LOGOUT,
      state: 'after',
    });
    expect(page.statusCode).toBe(303);
    expect(page.headers?.location).toBe(`${AFTER_LOGOUT}?state=after`);
    expect(page.cookies).toEqual(CLEARED);
    expect(browser.cookies.has('idp-session')).toBe(false);
    expect(info).toHaveBeenCalledWith('signed out', {
      organizationId: shared.organization.id,
      userId: shared.user.id,
    });
    expect(vi.mocked(countMetric).mock.calls).toEqual([['SignOuts']]);
    // The person ended their session, through the application the hint names.
    expect(await signOutsOf(browser)).toEqual([
      expect.objectContaining({
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', id: shared.user.id, ip: browser.sourceIp }),
        targets: [{ type: 'user', id: shared.user.id }],
        signIn: { application: shared.application.id, amr: ['pwd'] },
      }),
    ]);
  });

  it('signs out at once to our page without a redirect URI, and without a state adds none', async () => {
    const { browser, idToken } = await signedIn();
    const cookie = browser.cookies.get('idp-session');
    const page = await browser.get(logout, { id_token_hint: idToken });
    expect(page.statusCode).toBe(200);
    expect(textOf(page)).toContain('You are signed out.');
    expect(await liveSession(cookie)).toBeUndefined();
    const second = await signedIn();
    const back = await second.browser.get(logout, {
      id_token_hint: second.idToken,
      post_logout_redirect_uri: AFTER_LOGOUT,
    });
    expect(back.headers?.location).toBe(AFTER_LOGOUT);
  });

  it('takes the same request sent as a form POST (RP-Initiated Logout 1.0 section 2) on to the GET, which carries the session cookie', async () => {
    const { browser, idToken } = await signedIn();
    const cookie = browser.cookies.get('idp-session') ?? '';
    const request = { id_token_hint: idToken, post_logout_redirect_uri: AFTER_LOGOUT, state: 'p' };
    // The application's site posts it: the browser sends no SameSite=Lax cookie with it, so the
    // POST changes nothing and sends the browser on to the GET of the same request.
    const posted = await browser.post(confirmLogout, { ...request, ui_locales: 'en' });
    expect(posted.statusCode).toBe(303);
    const onward = new URL(posted.headers?.location ?? '', 'http://localhost');
    expect(onward.pathname).toBe('/oauth2/logout');
    expect(Object.fromEntries(onward.searchParams)).toEqual(request);
    expect(await liveSession(cookie)).toBeDefined();
    // The GET, a top-level navigation with the cookie: signed out, back to the registered URI.
    const page = await browser.get(logout, Object.fromEntries(onward.searchParams));
    expect(page.headers?.location).toBe(`${AFTER_LOGOUT}?state=p`);
    expect(await liveSession(cookie)).toBeUndefined();
  });

  it('accepts an expired ID token up to the longest a session lives', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { browser, idToken } = await signedIn();
    vi.advanceTimersByTime(3_600_000);
    expect((await browser.get(logout, { id_token_hint: idToken })).cookies).toEqual(CLEARED);
  });
});

describe('logout without a hint of this session', () => {
  it('asks the person, on a form bound to the session that carries the request', async () => {
    const { browser } = await signedIn();
    const cookie = browser.cookies.get('idp-session') ?? '';
    const page = await browser.get(logout, {
      client_id: shared.application.id,
      post_logout_redirect_uri: AFTER_LOGOUT,
      state: 'after',
    });
    expect(page.statusCode).toBe(200);
    expect(textOf(page)).toContain(shared.organization.name);
    expect(hiddenField(textOf(page), 'csrf')).toBe(sessionCsrfToken(cookie));
    expect(hiddenField(textOf(page), 'client_id')).toBe(shared.application.id);
    expect(hiddenField(textOf(page), 'post_logout_redirect_uri')).toBe(AFTER_LOGOUT);
    expect(hiddenField(textOf(page), 'state')).toBe('after');
    expect(hiddenField(textOf(page), 'id_token_hint')).toBeUndefined();
    expect(await sessionOf(browser)).toBeDefined();

    // The form posted back signs out; without a hint nothing proves the application: no redirect.
    const done = await browser.post(confirmLogout, {
      csrf: sessionCsrfToken(cookie),
      client_id: shared.application.id,
      post_logout_redirect_uri: AFTER_LOGOUT,
      state: 'after',
    });
    expect(done.statusCode).toBe(200);
    expect(done.cookies).toEqual(CLEARED);
    expect(await liveSession(cookie)).toBeUndefined();
    // Asking changed nothing; the form ended the session. No hint: no application named.
    expect((await signOutsOf(browser)).map((record) => record.signIn)).toEqual([{ amr: ['pwd'] }]);
  });

  it("asks for a hint of another sign-in of the same person, and the form then follows the hint's redirect", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const earlier = await signedIn();
    vi.advanceTimersByTime(1_000);
    const { browser } = await signedIn();
    const cookie = browser.cookies.get('idp-session') ?? '';
    const request = { id_token_hint: earlier.idToken, post_logout_redirect_uri: AFTER_LOGOUT, state: 's' };
    const page = await browser.get(logout, request);
    expect(page.statusCode).toBe(200);
    expect(hiddenField(textOf(page), 'id_token_hint')).toBe(earlier.idToken);
    const done = await browser.post(confirmLogout, { ...request, csrf: sessionCsrfToken(cookie) });
    expect(done.headers?.location).toBe(`${AFTER_LOGOUT}?state=s`);
    expect(await liveSession(cookie)).toBeUndefined();
    // The earlier session was not this one: it stays.
    expect(await sessionOf(earlier.browser)).toBeDefined();
  });

  it("refuses the form with another session's token (CSRF), changing nothing", async () => {
    const victim = await signedIn();
    const attacker = await signedIn();
    const attackerCookie = attacker.browser.cookies.get('idp-session') ?? '';
    const victimCookie = victim.browser.cookies.get('idp-session') ?? '';
    // The attacker's own session token on the victim's browser: refused.
    const refused = await victim.browser.post(confirmLogout, { csrf: sessionCsrfToken(attackerCookie) });
    expect(refused.statusCode).toBe(403);
    expect(alertOf(refused)).toBe(
      'This sign-out form could not be verified, so nothing changed. Go back to the application and sign out again.',
    );
    expect(refused.cookies).toBeUndefined();
    expect(await liveSession(victimCookie)).toBeDefined();
    expect(await signOutsOf(victim.browser)).toEqual([]);
    expect(
      (await victim.browser.post(confirmLogout, { csrf: sessionCsrfToken(victimCookie) })).statusCode,
    ).toBe(200);
    expect(await liveSession(victimCookie)).toBeUndefined();
    expect(await signOutsOf(victim.browser)).toHaveLength(1);
    expect((await victim.browser.open(confirmLogout, {})).statusCode).toBe(403);
  });

  it('answers a browser without a live session with the signed-out page, redirecting nowhere', async () => {
    const info = vi.spyOn(logger, 'info');
    const browser = new PagesBrowser();
    const page = await browser.get(logout, {
      client_id: shared.application.id,
      post_logout_redirect_uri: AFTER_LOGOUT,
    });
    expect(page.statusCode).toBe(200);
    expect(textOf(page)).toContain('You are signed out.');
    // The session cookie only: the browser binding of its sign-ins under way stays (any site can
    // send a browser here: sign-out-open-sign-ins.int).
    expect(page.cookies).toEqual([CLEARED[0]]);
    // Nobody was signed out.
    expect(info).not.toHaveBeenCalledWith('signed out', expect.anything());
    expect(vi.mocked(countMetric)).not.toHaveBeenCalled();
    expect(await signOutsOf(browser)).toEqual([]);
  });
});

describe('logout refuses', () => {
  it('a hint that is not an ID token of this service', async () => {
    const { browser, accessToken, idToken } = await signedIn();
    for (const hint of ['not-a-token', accessToken, `${idToken.slice(0, -2)}AA`]) {
      const page = await browser.get(logout, { id_token_hint: hint });
      expect(page.statusCode).toBe(400);
      expect(alertOf(page)).toBe('The id_token_hint is not an ID token of this service.');
    }
    expect(await sessionOf(browser)).toBeDefined();
  });

  it.each([
    ['an audience list', { aud: ['app'] }],
    ['an audience no client can have', { aud: 'not a client' }],
    ['no organization', { org: undefined }],
    ['no subject', { sub: undefined }],
    ['no auth_time', { auth_time: undefined }],
    ['an auth_time that is no number', { auth_time: '1' }],
  ])('an ID token of this service with %s', async (_case, change) => {
    const { browser } = await signedIn();
    const session = await sessionOf(browser);
    const claims = {
      aud: shared.application.id,
      org: shared.organization.id,
      sub: shared.user.id,
      auth_time: Math.floor((session?.authTime ?? 0) / 1000),
    };
    // Positive control: these claims, as the service writes them, sign out at once.
    const other = await signedIn();
    const otherSession = await sessionOf(other.browser);
    const right = await ownToken({ ...claims, auth_time: Math.floor((otherSession?.authTime ?? 0) / 1000) });
    expect((await other.browser.get(logout, { id_token_hint: right })).cookies).toEqual(CLEARED);
    const page = await browser.get(logout, { id_token_hint: await ownToken({ ...claims, ...change }) });
    expect(page.statusCode).toBe(400);
    expect(await sessionOf(browser)).toBeDefined();
  });

  it('a client_id other than the hint’s application', async () => {
    const { browser, idToken } = await signedIn();
    const page = await browser.get(logout, { id_token_hint: idToken, client_id: 'other-app' });
    expect(page.statusCode).toBe(400);
    expect(alertOf(page)).toBe('client_id does not match the application of the id_token_hint.');
    expect(await sessionOf(browser)).toBeDefined();
  });

  it('a redirect URI the application did not register (no open redirect)', async () => {
    const { browser, idToken } = await signedIn();
    for (const uri of [REDIRECT, `${AFTER_LOGOUT}/more`, 'https://evil.example/']) {
      const page = await browser.get(logout, { id_token_hint: idToken, post_logout_redirect_uri: uri });
      expect(page.statusCode).toBe(400);
      expect(alertOf(page)).toBe('The post-logout redirect URI is not registered for this application.');
    }
    expect(await sessionOf(browser)).toBeDefined();
  });
});
