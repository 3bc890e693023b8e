import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { parsePasswordHash, verifyPassword } from '../../shared/auth/passwords.js';
import { reloadConfig } from '../../shared/config.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric } from '../../shared/observability/metrics.js';
import { livePasswordLink } from '../../shared/store/credentials.js';
import { keys } from '../../shared/store/keys.js';
import {
  createSession,
  liveSession,
  recordSignInFailure,
  redeemAuthorizationCode,
  signInLockedUntil,
} from '../../shared/store/sign-in-state.js';
import { configureSsoProvider } from '../../shared/store/sso-provider-repository.js';
import {
  getUser,
  queueJoinEmail,
  setUserStatus,
  type UserRecord,
} from '../../shared/store/user-repository.js';
import { signInTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  CHALLENGE,
  locationOf,
  PASSWORD,
  PagesBrowser,
  personWithPassword,
  providerServing,
  REDIRECT,
  requestIdOf,
  resetPassword,
  signInSetup,
  textOf,
  USER_AGENT,
  uniqueDomain,
} from '../support/hosted-pages.js';
import { getItem } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * The authorization endpoint and the password form (shared/auth/browser-sign-in.ts), their
 * handlers called in process against DynamoDB Local: who is signed in without a form, who gets
 * the form, and what a posted form proves.
 */

// What the form counts and checks, observed: metrics, and every password check it spends.
vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));
vi.mock('../../shared/auth/passwords.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/auth/passwords.js')>();
  return { ...actual, verifyPassword: vi.fn(actual.verifyPassword) };
});

useDatabase();

/** An SSO provider the organization offers at sign-in, routing the emails of `emailDomains`. */
const offerProvider = (organizationId: string, clientId: string, emailDomains?: string[]) =>
  configureSsoProvider(
    {
      clientId,
      organizationIds: [organizationId],
      clientSecret: 'upstream secret',
      issuer: `https://${clientId}.upstream.example`,
      ...(emailDomains ? { emailDomains } : {}),
    },
    'test',
  );

/** The organization, application and person most tests share; a test that changes the person makes its own. */
let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup();
});

const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';
const WRONG = 'The email or password is not right.';

afterEach(() => {
  vi.mocked(countMetric).mockClear();
  vi.mocked(verifyPassword).mockClear();
  vi.restoreAllMocks();
  vi.useRealTimers();
  delete process.env.IDP_SIGNIN_ATTEMPTS_PER_MINUTE;
  delete process.env.IDP_PASSWORD_SCRYPT_LOG2_N;
  Object.assign(process.env, { IDP_SIGNIN_ATTEMPTS_PER_MINUTE: '100000', IDP_PASSWORD_SCRYPT_LOG2_N: '15' });
  reloadConfig();
});

/** The `sign-in refused` log lines written from now on: their fields. */
const refusalsLogged = () => {
  const info = vi.spyOn(logger, 'info');
  return () =>
    info.mock.calls
      .filter(([message]) => message === 'sign-in refused')
      .map(([, fields]) => fields as { reason: string; consecutiveFailures: number });
};

const metricsCounted = () => vi.mocked(countMetric).mock.calls.map(([name]) => name);

/** Opens the authorization endpoint and posts the password form; answers the last page. */
const signIn = async (
  browser: PagesBrowser,
  clientId: string,
  email: string,
  options: { password?: string; extra?: Record<string, string> } = {},
) => {
  const form = await browser.get(authorize, authorizationQuery(clientId, options.extra));
  return browser.post(submitSignIn, {
    request: requestIdOf(form),
    email,
    password: options.password ?? PASSWORD,
  });
};

/** The code of a redirect back, redeemed as the application would. */
const redeemed = async (clientId: string, location: URL) => {
  const redemption = await redeemAuthorizationCode(
    location.searchParams.get('code') ?? '',
    { clientId, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
    'family',
  );
  if (redemption.outcome !== 'redeemed') throw new Error(`The code was ${redemption.outcome}`);
  return redemption.grant;
};

describe('the authorization endpoint', () => {
  it('shows the sign-in form of a request bound to this browser, binding a new browser once', async () => {
    const { organization, application } = shared;
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(application.id));
    expect(form.statusCode).toBe(200);
    expect(form.cookies).toEqual([expect.stringMatching(/^idp-browser=[\w-]{43}; Path=\/; HttpOnly/)]);
    expect(textOf(form)).toContain(organization.name);
    expect(textOf(form)).toContain('Sign-in app');
    const again = await browser.get(authorize, authorizationQuery(application.id));
    expect(again.cookies).toBeUndefined();
    expect(requestIdOf(again)).not.toBe(requestIdOf(form));
    const pending = await getItem(keys.authorizationRequest(requestIdOf(form)));
    expect(pending).toMatchObject({ clientId: application.id, state: 'state-1', nonce: 'nonce-1' });
  });

  it('answers a client_id that names no application with our error page, never a redirect', async () => {
    const browser = new PagesBrowser();
    for (const clientId of ['no-such-client', 'not a client id']) {
      const page = await browser.get(authorize, authorizationQuery(clientId));
      expect(page.statusCode).toBe(400);
      expect(alertOf(page)).toBe('The application is not registered for sign-in.');
    }
  });

  it("sends a verified application's protocol errors back to it, with its state and our issuer", async () => {
    const { application } = shared;
    const page = await new PagesBrowser().get(
      authorize,
      authorizationQuery(application.id, { response_type: 'token' }),
    );
    expect(page.statusCode).toBe(303);
    const back = locationOf(page);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'unsupported_response_type',
      error_description: 'Only response_type=code is supported',
      state: 'state-1',
      iss: 'http://localhost',
    });
  });

  it('answers prompt=none without a session with login_required', async () => {
    const { application } = shared;
    const page = await new PagesBrowser().get(
      authorize,
      authorizationQuery(application.id, { prompt: 'none' }),
    );
    expect(Object.fromEntries(locationOf(page).searchParams)).toEqual({
      error: 'login_required',
      error_description: 'The person is not signed in',
      state: 'state-1',
      iss: 'http://localhost',
    });
  });

  it('reads the person of a session consistently, so a deactivation is seen at once', async () => {
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    const reads = await measureRoundTrips('session sign-in', () =>
      browser.get(authorize, authorizationQuery(application.id)),
    );
    const userRead = reads.recorded.find(
      (call) => call.command === 'GetCommand' && JSON.stringify(call.input).includes(`USER#${user.id}`),
    );
    expect(userRead?.input).toMatchObject({ ConsistentRead: true });
  });

  it('signs a person with a live session in without a form, keeping the session', async () => {
    const { application, user } = shared;
    const browser = new PagesBrowser();
    const first = await signIn(browser, application.id, user.email);
    const session = browser.cookies.get('idp-session');
    const firstGrant = await redeemed(application.id, locationOf(first));
    const since = Date.now();
    const again = await browser.get(
      authorize,
      authorizationQuery(application.id, { prompt: 'none', state: 's2' }),
    );
    expect(again.statusCode).toBe(303);
    expect(again.cookies).toBeUndefined();
    expect(browser.cookies.get('idp-session')).toBe(session);
    expect(locationOf(again).searchParams.get('state')).toBe('s2');
    const grant = await redeemed(application.id, locationOf(again));
    // The session's authentication, not a new one: its sign-in was recorded, nothing more is.
    expect(grant).toMatchObject({ userId: user.id, amr: ['pwd'], authTime: firstGrant.authTime });
    expect(await signInTrail(application.organizationId, user.id, since)).toEqual([]);
  });

  it("takes no session but one made by the SSO provider that has come to serve the person's domain", async () => {
    const setup = await signInSetup();
    const domain = uniqueDomain();
    const user = await personWithPassword(setup.organization.id, PASSWORD, `person@${domain}`);
    const browser = new PagesBrowser();
    await signIn(browser, setup.application.id, user.email);
    const silently = () =>
      browser.get(authorize, authorizationQuery(setup.application.id, { prompt: 'none', state: 's' }));
    // The positive control: the password's session signs in again without a form.
    expect(locationOf(await silently()).searchParams.get('code')).toBeTruthy();
    await providerServing(setup.organization.id, domain);
    expect(Object.fromEntries(locationOf(await silently()).searchParams)).toMatchObject({
      error: 'login_required',
    });
    expect((await browser.get(authorize, authorizationQuery(setup.application.id))).statusCode).toBe(200);
    // A session another provider made does not stand either; one the provider serving the domain made does.
    const federated = (provider: string) =>
      createSession(
        {
          organizationId: setup.organization.id,
          userId: user.id,
          amr: ['fed'],
          authTime: Date.now(),
          provider,
        },
        { idleSeconds: 3600, absoluteSeconds: 43_200 },
      );
    browser.cookies.set('idp-session', (await federated('another-provider')).cookieValue);
    expect(locationOf(await silently()).searchParams.get('error')).toBe('login_required');
    browser.cookies.set('idp-session', (await federated(`workforce-${domain}`)).cookieValue);
    expect(locationOf(await silently()).searchParams.get('code')).toBeTruthy();
  });

  it('takes a session as recent enough within max_age only', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    vi.advanceTimersByTime(60_000);
    const within = await browser.get(authorize, authorizationQuery(application.id, { max_age: '60' }));
    expect(within.statusCode).toBe(303);
    vi.advanceTimersByTime(1_000);
    const beyond = await browser.get(authorize, authorizationQuery(application.id, { max_age: '60' }));
    expect(beyond.statusCode).toBe(200);
    expect(requestIdOf(beyond)).toBeDefined();
  });

  it('asks for the password again with prompt=login, and prompt=none then fails', async () => {
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    const login = await browser.get(authorize, authorizationQuery(application.id, { prompt: 'login' }));
    expect(login.statusCode).toBe(200);
    expect(requestIdOf(login)).toBeDefined();
    // The session stays: only this request wants a new authentication.
    expect(await liveSession(browser.cookies.get('idp-session'))).toBeDefined();
  });

  it("asks again in another organization's application", async () => {
    const { application, user } = shared;
    const other = await signInSetup();
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    const page = await browser.get(authorize, authorizationQuery(other.application.id));
    expect(page.statusCode).toBe(200);
    expect(requestIdOf(page)).toBeDefined();
  });

  it('asks again once the person is deactivated, or their password was reset after the sign-in', async () => {
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    // Positive control: the session signs in.
    expect((await browser.get(authorize, authorizationQuery(application.id))).statusCode).toBe(303);

    await resetPassword(user, 'new password');
    expect((await browser.get(authorize, authorizationQuery(application.id))).statusCode).toBe(200);

    const second = new PagesBrowser();
    await signIn(second, application.id, user.email, { password: 'new password' });
    expect((await second.get(authorize, authorizationQuery(application.id))).statusCode).toBe(303);
    await setUserStatus(organization.id, user.id, 'INACTIVE');
    expect((await second.get(authorize, authorizationQuery(application.id))).statusCode).toBe(200);
  });
});

describe('the sign-in form', () => {
  it('signs the person in: a new session, the code back, and the request used up', async () => {
    const { application, user } = shared;
    const browser = new PagesBrowser();
    const form = await browser.get(
      authorize,
      authorizationQuery(application.id, { scope: 'openid profile' }),
    );
    const info = vi.spyOn(logger, 'info');
    const before = Date.now();
    const done = await browser.post(submitSignIn, {
      request: requestIdOf(form),
      email: user.email,
      password: PASSWORD,
    });
    expect(done.statusCode).toBe(303);
    expect(done.cookies).toEqual([
      expect.stringMatching(/^idp-session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax$/),
    ]);
    const back = locationOf(done);
    expect(back.searchParams.get('state')).toBe('state-1');
    expect(back.searchParams.get('iss')).toBe('http://localhost');
    const grant = await redeemed(application.id, back);
    expect(grant).toMatchObject({
      clientId: application.id,
      userId: user.id,
      scope: 'openid profile',
      nonce: 'nonce-1',
      amr: ['pwd'],
    });
    expect(grant.authTime).toBeGreaterThanOrEqual(before);
    const session = await liveSession(browser.cookies.get('idp-session'));
    expect(session).toMatchObject({ userId: user.id, amr: ['pwd'], authTime: grant.authTime });
    expect(metricsCounted()).toEqual(['SignIns']);
    expect(info).toHaveBeenCalledWith('signed in', {
      organizationId: application.organizationId,
      clientId: application.id,
      userId: user.id,
      amr: ['pwd'],
    });
    // Recorded with the session: the person, where from, through which application and how.
    const [record, ...more] = await signInTrail(application.organizationId, user.id, before);
    expect(more).toEqual([]);
    expect(record).toEqual({
      id: expect.any(String),
      organizationId: application.organizationId,
      time: expect.any(Number),
      action: 'signin.succeeded',
      actor: { type: 'user', id: user.id, name: user.email, ip: browser.sourceIp, userAgent: USER_AGENT },
      targets: [{ type: 'user', id: user.id, name: user.email }],
      outcome: 'success',
      signIn: { application: application.id, amr: ['pwd'] },
      requestId: 'request',
    });

    const replay = await browser.post(submitSignIn, {
      request: requestIdOf(form),
      email: user.email,
      password: PASSWORD,
    });
    expect(replay.statusCode).toBe(400);
    expect(alertOf(replay)).toBe(EXPIRED);
  });

  it("ends the browser's earlier session when the person signs in again", async () => {
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    const first = browser.cookies.get('idp-session');
    await signIn(browser, application.id, user.email, { extra: { prompt: 'login' } });
    expect(browser.cookies.get('idp-session')).not.toBe(first);
    expect(await liveSession(first)).toBeUndefined();
    expect(await liveSession(browser.cookies.get('idp-session'))).toBeDefined();
  });

  it("refuses a form posted with another browser's request (login CSRF)", async () => {
    const { application, user } = shared;
    const victim = new PagesBrowser();
    const attacker = new PagesBrowser();
    const victimForm = await victim.get(authorize, authorizationQuery(application.id));
    const attackerForm = await attacker.get(authorize, authorizationQuery(application.id));
    // Positive control: the attacker's own request signs in.
    const own = await attacker.post(submitSignIn, {
      request: requestIdOf(attackerForm),
      email: user.email,
      password: PASSWORD,
    });
    expect(own.statusCode).toBe(303);
    const attack = await attacker.post(submitSignIn, {
      request: requestIdOf(victimForm),
      email: user.email,
      password: PASSWORD,
    });
    expect(attack.statusCode).toBe(400);
    expect(alertOf(attack)).toBe(EXPIRED);
    // The victim's request is still pending: their own form still works.
    const victims = await victim.post(submitSignIn, {
      request: requestIdOf(victimForm),
      email: user.email,
      password: PASSWORD,
    });
    expect(victims.statusCode).toBe(303);
  });

  it('refuses a form that cannot be read, or names no request', async () => {
    const browser = new PagesBrowser();
    const unreadable = await browser.open(submitSignIn, {});
    expect(unreadable.statusCode).toBe(400);
    expect(alertOf(unreadable)).toBe(
      'The sign-in form could not be read. Go back to the application and start again.',
    );
    const noRequest = await browser.post(submitSignIn, { email: 'a@example.com', password: 'x' });
    expect(alertOf(noRequest)).toBe(EXPIRED);
  });

  it('answers a wrong password, an unknown email and a deactivated person alike, keeping the email', async () => {
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    const deactivated = await personWithPassword(organization.id);
    await setUserStatus(organization.id, deactivated.id, 'INACTIVE');
    const logged = refusalsLogged();
    const since = Date.now();
    for (const [email, password] of [
      [user.email, 'wrong password'],
      ['nobody@example.com', PASSWORD],
      [deactivated.email, PASSWORD],
    ] as const) {
      vi.mocked(verifyPassword).mockClear();
      const page = await signIn(new PagesBrowser(), application.id, `  ${email} `, { password });
      expect(page.statusCode, email).toBe(401);
      expect(alertOf(page)).toBe(WRONG);
      expect(textOf(page)).toContain(`value="${email}"`);
      expect(requestIdOf(page)).toBeDefined();
      // The same work whoever the email is: one password check (no user enumeration by timing).
      expect(vi.mocked(verifyPassword)).toHaveBeenCalledTimes(1);
      expect(vi.mocked(verifyPassword)).toHaveBeenCalledWith(
        password,
        expect.stringMatching(/^scrypt-nfkc\$/),
      );
    }
    expect(logged()).toEqual([
      {
        organizationId: organization.id,
        clientId: application.id,
        reason: 'credentials-or-status',
        consecutiveFailures: 1,
      },
      expect.objectContaining({ reason: 'unknown-email', consecutiveFailures: 1 }),
      expect.objectContaining({ reason: 'credentials-or-status', consecutiveFailures: 1 }),
    ]);
    expect(metricsCounted()).toEqual(['SignInsRefused', 'SignInsRefused', 'SignInsRefused']);
    // The records tell what the person was not told: who (or which email) and why.
    const failed = {
      action: 'signin.failed',
      outcome: 'failure',
      signIn: { application: application.id, amr: ['pwd'] },
    };
    expect(await signInTrail(organization.id, user.id, since)).toEqual([
      expect.objectContaining({
        ...failed,
        reason: 'wrong password',
        actor: expect.objectContaining({ type: 'user', id: user.id, name: user.email }),
        targets: [{ type: 'user', id: user.id, name: user.email }],
      }),
    ]);
    const unknown = (await signInTrail(organization.id, 'anonymous', since)).filter(
      (record) => record.actor.name === 'nobody@example.com',
    );
    expect(unknown).toEqual([
      expect.objectContaining({
        ...failed,
        reason: 'unknown email',
        actor: expect.objectContaining({ type: 'user', id: 'anonymous', name: 'nobody@example.com' }),
        targets: [],
      }),
    ]);
    expect(await signInTrail(organization.id, deactivated.id, since)).toEqual([
      expect.objectContaining({ ...failed, reason: 'user not active' }),
    ]);
  });

  it('locks an email after five failures, even for the right password, until the wait is over', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    const browser = new PagesBrowser();
    const logged = refusalsLogged();
    for (let failure = 1; failure <= 4; failure++) {
      await signIn(browser, application.id, user.email, { password: `wrong ${failure}` });
    }
    expect(metricsCounted()).not.toContain('SignInLockouts');
    await signIn(browser, application.id, user.email, { password: 'wrong 5' });
    expect(metricsCounted().filter((name) => name === 'SignInLockouts')).toHaveLength(1);
    expect(await signInLockedUntil(organization.id, user.email)).toBe(Date.now() + 60_000);
    vi.advanceTimersByTime(59_999);
    vi.mocked(verifyPassword).mockClear();
    expect((await signIn(browser, application.id, user.email)).statusCode).toBe(401);
    // Locked: the right password is not even checked, but the same work is spent.
    expect(vi.mocked(verifyPassword)).toHaveBeenCalledTimes(1);
    expect(vi.mocked(verifyPassword).mock.calls[0]?.[1]).not.toBe(user.passwordHash);
    expect(logged().map(({ reason, consecutiveFailures }) => [reason, consecutiveFailures])).toEqual([
      ['credentials-or-status', 1],
      ['credentials-or-status', 2],
      ['credentials-or-status', 3],
      ['credentials-or-status', 4],
      ['credentials-or-status', 5],
      ['locked', 6],
    ]);
    // That attempt failed too, the sixth: two minutes from then.
    const lockedUntil = await signInLockedUntil(organization.id, user.email);
    expect(lockedUntil).toBe(Date.now() + 120_000);
    vi.setSystemTime(lockedUntil);
    expect((await signIn(browser, application.id, user.email)).statusCode).toBe(303);
    // From the moment the lock ends, a wrong password is no locked attempt.
    vi.setSystemTime(lockedUntil + 1000);
    const other = await personWithPassword(organization.id);
    for (let failure = 1; failure <= 5; failure++) {
      await signIn(new PagesBrowser(), application.id, other.email, { password: 'wrong' });
    }
    vi.setSystemTime(await signInLockedUntil(organization.id, other.email));
    await signIn(new PagesBrowser(), application.id, other.email, { password: 'wrong' });
    expect(logged().at(-1)?.reason).toBe('credentials-or-status');
    // The failure that locks is `signin.locked`; one while locked fails as such; a success after.
    // (The clock stands still between advances: records of one instant are compared as a set.)
    const outcomes = async (person: UserRecord) =>
      (await signInTrail(organization.id, person.id)).map((record) => `${record.action} ${record.reason}`);
    expect((await outcomes(user)).sort()).toEqual(
      [
        ...Array.from({ length: 4 }, () => 'signin.failed wrong password'),
        'signin.locked wrong password',
        'signin.failed locked',
        'signin.succeeded undefined',
      ].sort(),
    );
    // A failure once a lock is over locks again (for longer): `signin.locked` once more.
    expect((await outcomes(other)).sort()).toEqual(
      [
        ...Array.from({ length: 4 }, () => 'signin.failed wrong password'),
        'signin.locked wrong password',
        'signin.locked wrong password',
      ].sort(),
    );
  });

  it('checks one password at a time per email: parallel guesses cannot slip past the lock', async () => {
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    // Ten failures, the last lock over: the next failure locks again, so one guess may be checked.
    for (let failure = 0; failure < 10; failure++)
      await recordSignInFailure(organization.id, user.email, () => 0);
    // Each guess on a sign-in request of its own, opened first, then all posted at once.
    const guesses = await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const browser = new PagesBrowser();
        const request = requestIdOf(await browser.get(authorize, authorizationQuery(application.id)));
        // All wrong: a right one may be checked first and clear the count (memoized scrypt is
        // fast), after which a later guess is rightly checked again; that is no slip past the lock.
        return { browser, request, password: `wrong guess ${index}` };
      }),
    );
    const logged = refusalsLogged();
    const answers = await Promise.all(
      guesses.map(({ browser, request, password }) =>
        browser.post(submitSignIn, { request, email: user.email, password }),
      ),
    );
    // Without the reservation all eight are checked; with it, one, and its failure locks the rest out.
    expect(logged().filter((entry) => entry.reason === 'credentials-or-status')).toHaveLength(1);
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(401));
    expect(await signInLockedUntil(organization.id, user.email)).toBeGreaterThan(Date.now());
  });

  it('signs in with a password of 1,024 characters outside the BMP, as the password rules count them', async () => {
    const { organization, application } = shared;
    // 1,024 characters, 2,048 UTF-16 units: the rules take it, so sign-in must not cut it.
    const long = '🔑'.repeat(1024);
    const user = await personWithPassword(organization.id, long);
    expect(
      (await signIn(new PagesBrowser(), application.id, user.email, { password: long })).statusCode,
    ).toBe(303);
    const cut = '🔑'.repeat(512);
    expect((await signIn(new PagesBrowser(), application.id, user.email, { password: cut })).statusCode).toBe(
      401,
    );
  });

  it('leaves no other link alive once a password is set through one: an old join link sets nothing', async () => {
    const { organization } = shared;
    const user = await personWithPassword(organization.id);
    const join = await queueJoinEmail(organization.id, user.id);
    expect(await livePasswordLink(join.invitationToken)).toBeDefined();
    await resetPassword(user, `${PASSWORD} reset`);
    expect(await livePasswordLink(join.invitationToken)).toBeUndefined();
  });

  it('forgets the failures of an email once its person signs in (without two steps)', async () => {
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    const browser = new PagesBrowser();
    for (let failure = 1; failure <= 4; failure++) {
      await signIn(browser, application.id, user.email, { password: `wrong ${failure}` });
    }
    expect(await getItem(keys.signInFailures(organization.id, user.email))).toMatchObject({ failures: 4 });
    expect((await signIn(browser, application.id, user.email)).statusCode).toBe(303);
    expect(await getItem(keys.signInFailures(organization.id, user.email))).toBeUndefined();
    await signIn(new PagesBrowser(), application.id, user.email, { password: 'wrong again' });
    expect(await getItem(keys.signInFailures(organization.id, user.email))).toMatchObject({ failures: 1 });
    expect(await signInLockedUntil(organization.id, user.email)).toBe(0);
  });

  it('counts no failure for a form without an email, recording an anonymous one', async () => {
    const { application } = shared;
    const browser = new PagesBrowser();
    const since = Date.now();
    const page = await signIn(browser, application.id, '', { password: 'x' });
    expect(page.statusCode).toBe(401);
    const records = (await signInTrail(application.organizationId, 'anonymous', since)).filter(
      (record) => record.actor.ip === browser.sourceIp,
    );
    expect(records).toEqual([
      expect.objectContaining({ action: 'signin.failed', reason: 'no email', targets: [] }),
    ]);
    expect(records[0]?.actor).not.toHaveProperty('name');
  });

  it('throttles the attempts of one address past the limit a minute', async () => {
    // Every attempt in one minute: the clock stands at the start of the next one.
    vi.useFakeTimers({ toFake: ['Date'], now: (Math.floor(Date.now() / 60_000) + 1) * 60_000 });
    process.env.IDP_SIGNIN_ATTEMPTS_PER_MINUTE = '2';
    reloadConfig();
    const { application, user } = shared;
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(application.id));
    const post = () =>
      browser.post(submitSignIn, { request: requestIdOf(form), email: user.email, password: 'wrong' });
    const warn = vi.spyOn(logger, 'warn');
    expect((await post()).statusCode).toBe(401);
    expect((await post()).statusCode).toBe(401);
    expect(metricsCounted()).not.toContain('SignInsThrottled');
    const throttled = await post();
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers).toMatchObject({ 'retry-after': '60' });
    expect((await post()).statusCode).toBe(429);
    expect((await post()).statusCode).toBe(429);
    expect(metricsCounted().filter((name) => name === 'SignInsThrottled')).toHaveLength(3);
    // One warning per address and minute, at the first refusal.
    expect(warn.mock.calls).toEqual([['sign-in attempts throttled']]);
    // Another address is not throttled.
    expect((await signIn(new PagesBrowser(), application.id, user.email)).statusCode).toBe(303);
  });

  it("replaces a hash of weaker parameters than today's at the sign-in, keeping the password", async () => {
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    expect(parsePasswordHash(user.passwordHash ?? '')?.parameters.N).toBe(2 ** 15);
    process.env.IDP_PASSWORD_SCRYPT_LOG2_N = '16';
    reloadConfig();
    const info = vi.spyOn(logger, 'info');
    expect((await signIn(new PagesBrowser(), application.id, user.email)).statusCode).toBe(303);
    expect(info).toHaveBeenCalledWith('password rehashed', {
      organizationId: organization.id,
      userId: user.id,
    });
    const stored = (await getUser(organization.id, user.id, true))?.passwordHash ?? '';
    expect(parsePasswordHash(stored)?.parameters.N).toBe(2 ** 16);
    expect(await verifyPassword(PASSWORD, stored)).toBe(true);
    // Sessions stay: the password did not change.
    expect((await getUser(organization.id, user.id, true))?.credentialsChangedAt).toBe(
      user.credentialsChangedAt,
    );
    // A hash of today's parameters stays as it is.
    info.mockClear();
    expect((await signIn(new PagesBrowser(), application.id, user.email)).statusCode).toBe(303);
    expect((await getUser(organization.id, user.id, true))?.passwordHash).toBe(stored);
    expect(info).not.toHaveBeenCalledWith('password rehashed', expect.anything());
  });

  it("sends an email of an SSO provider's domain to that provider, without a password", async () => {
    const { organization, application } = await signInSetup();
    await offerProvider(organization.id, 'corp-sso', ['corp.example']);
    // Another provider of the organization serves no domain: emails still route to the first.
    await offerProvider(organization.id, 'other-sso');
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(application.id));
    expect(textOf(form)).toContain('corp-sso');
    // The password may stay empty: an email of the provider's domain signs in there.
    expect(textOf(form)).toContain('leave the password empty');
    expect(textOf(form)).not.toMatch(/name="password"[^>]* required/);
    const page = await browser.post(submitSignIn, {
      request: requestIdOf(form),
      email: 'ann@Corp.Example',
      password: '',
    });
    expect(page.statusCode).toBe(303);
    const location = locationOf(page);
    expect(location.pathname).toBe('/signin/sso');
    expect(Object.fromEntries(location.searchParams)).toEqual({
      request: requestIdOf(form),
      provider: 'corp-sso',
      login_hint: 'ann@Corp.Example',
    });
  });

  it('asks for a password when no SSO provider routes emails by domain', async () => {
    const { organization, application } = await signInSetup();
    await offerProvider(organization.id, 'any-email-sso');
    const form = await new PagesBrowser().get(authorize, authorizationQuery(application.id));
    expect(textOf(form)).toContain('any-email-sso');
    expect(textOf(form)).toMatch(/name="password"[^>]* required/);
    expect(textOf(form)).not.toContain('leave the password empty');
  });

  it('reads at most 320 characters of an email and 1024 of a password, as the form allows', async () => {
    const { organization, application } = shared;
    const long = 'p'.repeat(1024);
    const user = await personWithPassword(organization.id, long);
    const page = await signIn(new PagesBrowser(), application.id, user.email, { password: `${long}beyond` });
    expect(page.statusCode).toBe(303);
    const email = `${'e'.repeat(320)}@example.com`;
    const since = Date.now();
    const refused = await signIn(new PagesBrowser(), application.id, email, { password: 'x' });
    expect(textOf(refused)).toContain(`value="${'e'.repeat(320)}"`);
    // What was read, cut from an address, is no email address: the record leaves it out.
    const records = await signInTrail(organization.id, 'anonymous', since);
    expect(records.map((entry) => entry.actor)).toEqual([
      expect.not.objectContaining({ name: expect.anything() }),
    ]);
    expect(await getItem(keys.signInFailures(organization.id, 'e'.repeat(320)))).toMatchObject({
      failures: 1,
    });
  });

  it('answers a form that names no request as expired, without looking for one', async () => {
    const browser = new PagesBrowser();
    await browser.get(authorize, authorizationQuery(shared.application.id));
    const posted = await measureRoundTrips('sign-in without a request', () =>
      browser.post(submitSignIn, { email: shared.user.email, password: PASSWORD }),
    );
    expect(posted.result.statusCode).toBe(400);
    expect(
      posted.recorded.flatMap((call) => call.partitions).filter((pk) => pk.startsWith('AUTHREQ#')),
    ).toEqual([]);
  });

  it('reads a form without an email as one with an empty email, which no failure is counted for', async () => {
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(shared.application.id));
    const posted = await measureRoundTrips('sign-in without an email', () =>
      browser.post(submitSignIn, { request: requestIdOf(form) }),
    );
    expect(posted.result.statusCode).toBe(401);
    expect(textOf(posted.result)).toContain('value=""');
    expect(
      posted.recorded.flatMap((call) => call.partitions).filter((pk) => pk.startsWith('LOCKOUT#')),
    ).toEqual([]);
  });
});

describe('a session', () => {
  it('that began the very millisecond the password changed is still the person’s', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { organization, application } = shared;
    const user = await personWithPassword(organization.id);
    await resetPassword(user, PASSWORD);
    const browser = new PagesBrowser();
    expect((await signIn(browser, application.id, user.email)).statusCode).toBe(303);
    expect((await browser.get(authorize, authorizationQuery(application.id))).statusCode).toBe(303);
  });

  it('is not renewed by a request with prompt=login, which does not use it', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email, { extra: { prompt: 'login' } });
    const before = await liveSession(browser.cookies.get('idp-session'));
    vi.advanceTimersByTime(600_000);
    await browser.get(authorize, authorizationQuery(application.id, { prompt: 'login' }));
    expect((await liveSession(browser.cookies.get('idp-session')))?.expiresAt).toBe(before?.expiresAt);
    await browser.get(authorize, authorizationQuery(application.id));
    expect((await liveSession(browser.cookies.get('idp-session')))?.expiresAt).toBe(
      Math.ceil((Date.now() + 3_600_000) / 1000),
    );
  });

  it('is not renewed by a request it is too old for (max_age), which asks for the password', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { application, user } = shared;
    const browser = new PagesBrowser();
    await signIn(browser, application.id, user.email);
    const before = await liveSession(browser.cookies.get('idp-session'));
    vi.advanceTimersByTime(600_000);
    const asked = await browser.get(authorize, authorizationQuery(application.id, { max_age: '60' }));
    expect(asked.statusCode).toBe(200);
    expect((await liveSession(browser.cookies.get('idp-session')))?.expiresAt).toBe(before?.expiresAt);
    // Positive control: a request the session is recent enough for uses it, and renews it.
    expect((await browser.get(authorize, authorizationQuery(application.id))).statusCode).toBe(303);
    expect((await liveSession(browser.cookies.get('idp-session')))?.expiresAt).toBe(
      Math.ceil((Date.now() + 3_600_000) / 1000),
    );
  });
});
