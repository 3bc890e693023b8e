import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { renderSVG } from 'uqr';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { showPasswordLink, submitPasswordLink } from '../../shared/auth/password-links.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { showTotpEnrolment } from '../../shared/auth/totp-enrolment.js';
import { reloadConfig } from '../../shared/config.js';
import { recoveryCodeDigest } from '../../shared/domain/recovery-codes.js';
import { lockoutMillis } from '../../shared/domain/sign-in-lockout.js';
import { totpStep } from '../../shared/domain/totp.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric } from '../../shared/observability/metrics.js';
import { issueResetLink, livePasswordLink, setPasswordWithLink } from '../../shared/store/credentials.js';
import { db } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import {
  liveSession,
  recordSignInFailure,
  redeemAuthorizationCode,
  signInLockedUntil,
} from '../../shared/store/sign-in-state.js';
import {
  getUser,
  setUserStatus,
  type UserRecord,
  updateUserAttributes,
} from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { hiddenField } from '../support/browser-session.js';
import { fileTable, useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  CHALLENGE,
  locationOf,
  PASSWORD,
  type Page,
  PagesBrowser,
  pendingTotpSecret,
  personWithPassword,
  REDIRECT,
  requestIdOf,
  signInSetup,
  storedTotpSecret,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';
import { getItem, setMfaEnabled } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * The steps after the password in an organization that uses two-step verification
 * (shared/auth/sign-in-steps.ts, sign-in-step-forms.ts, totp-enrolment.ts): enrolment with its
 * recovery codes, the code challenge, recovery codes, and what each form refuses. Handlers are
 * called in process against DynamoDB Local; the clock is faked where codes depend on it.
 */

vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));

useDatabase();

const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';
const WRONG_CODE = 'The code is not right. Check that the time on your device is correct, and try again.';

let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup({ mfaEnabled: true });
});

afterEach(() => {
  vi.mocked(countMetric).mockClear();
  vi.restoreAllMocks();
  vi.useRealTimers();
  process.env.IDP_SIGNIN_ATTEMPTS_PER_MINUTE = '100000';
  reloadConfig();
});

const metricsCounted = () => vi.mocked(countMetric).mock.calls.map(([name]) => name);

/** The log lines with this message written from now on: their fields. */
const logged = (message: string) => {
  const info = vi.spyOn(logger, 'info');
  return () => info.mock.calls.filter(([line]) => line === message).map(([, fields]) => fields);
};

/**
 * What the audit log holds of a person: `action reason` of each record by them, sorted (a faked
 * clock stands still, and records of one instant have no order).
 */
const recordedOf = async (user: { id: string }) =>
  (await auditTrail(shared.organization.id, { actorId: user.id }))
    .map((record) => `${record.action}${record.reason ? ` ${record.reason}` : ''}`)
    .sort();

/** The one record of `action` by the person. */
const recordOf = async (user: { id: string }, action: string) => {
  const records = await auditTrail(shared.organization.id, { actorId: user.id, action });
  expect(records).toHaveLength(1);
  return records[0];
};

/** Authorization request and password of a person; answers the page after the password. */
const afterPassword = async (browser: PagesBrowser, user: UserRecord, extra: Record<string, string> = {}) => {
  const form = await browser.get(authorize, authorizationQuery(shared.application.id, extra));
  const request = requestIdOf(form);
  const page = await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  return { request, page };
};

/** The key offered to a person enrolling, as the pending request holds it. */
const enrolmentSecret = pendingTotpSecret;

/** A person enrolled in a first sign-in; answers the person (with their secret) and the recovery codes. */
const enrolledPerson = async () => {
  const user = await personWithPassword(shared.organization.id);
  const browser = new PagesBrowser();
  const { request } = await afterPassword(browser, user);
  const secret = await enrolmentSecret(request);
  const codesPage = await browser.post(submitTotp, { request, code: totpCodeAt(secret) });
  const codes = [...textOf(codesPage).matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)].map(
    (match) => match[1],
  );
  const enrolled = (await getUser(shared.organization.id, user.id, true)) as UserRecord;
  return { user: enrolled, secret, codes: codes as string[] };
};

const grantOf = async (page: Page) => {
  const redemption = await redeemAuthorizationCode(
    locationOf(page).searchParams.get('code') ?? '',
    { clientId: shared.application.id, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
    'family',
  );
  if (redemption.outcome !== 'redeemed') throw new Error(`The code was ${redemption.outcome}`);
  return redemption.grant;
};

/** A reset link sent to the person, and its form opened in a browser. */
const resetForm = async (user: UserRecord) => {
  const link = await issueResetLink(
    user,
    { organizationId: user.organizationId, userId: user.id, to: user.email, name: user.name },
    3600,
  );
  const token = link?.token ?? '';
  const pages = new PagesBrowser();
  const csrf = hiddenField(textOf(await pages.get(showPasswordLink('reset'), { token })), 'csrf') ?? '';
  return { pages, token, csrf };
};

describe('enrolment', () => {
  it('stores sealed the key of an enrolment begun before sealing', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const secret = await enrolmentSecret(request);
    // As an earlier release left the pending sign-in: the key itself.
    await db().send(
      new UpdateCommand({
        TableName: fileTable(),
        Key: keys.authorizationRequest(request),
        UpdateExpression: 'SET totpEnrolment = :secret',
        ExpressionAttributeValues: { ':secret': secret },
      }),
    );
    expect((await browser.post(submitTotp, { request, code: totpCodeAt(secret) })).statusCode).toBe(200);
    expect((await getUser(shared.organization.id, user.id, true))?.totpSecret).toMatch(/^totp1\./);
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBe(secret);
  });

  it('sends a person without a key to enrol, shows the key to this browser only, and confirms it with a code', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request, page } = await afterPassword(browser, user);
    expect(page.statusCode).toBe(303);
    expect(page.cookies).toBeUndefined();
    expect(page.headers?.location).toBe(`/signin/enrol?request=${encodeURIComponent(request)}`);
    // The password alone signs nobody in: nothing is recorded yet.
    expect(await recordedOf(user)).toEqual([]);
    const secret = await enrolmentSecret(request);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await getItem(keys.authorizationRequest(request))).toMatchObject({
      userId: user.id,
      amr: ['pwd'],
    });

    const shown = await browser.get(showTotpEnrolment, { request });
    expect(shown.statusCode).toBe(200);
    expect(textOf(shown)).toContain(`<code>${secret}</code>`);
    expect(textOf(shown)).toContain(
      `otpauth://totp/${encodeURIComponent(shared.organization.name)}:${encodeURIComponent(user.email)}?secret=${secret}`,
    );
    expect(alertOf(shown)).toBeUndefined();
    // The QR code with a quiet zone of two modules, which scanners need.
    const uri = `otpauth://totp/${encodeURIComponent(shared.organization.name)}:${encodeURIComponent(user.email)}?${new URLSearchParams({ secret, issuer: shared.organization.name, algorithm: 'SHA1', digits: '6', period: '30' }).toString().replace(/\+/g, '%20')}`;
    expect(textOf(shown)).toContain(
      renderSVG(uri, { border: 2 }).replace(
        '<svg ',
        '<svg class="qr" role="img" aria-label="QR code of the authenticator key" ',
      ),
    );
    // Another browser, or no request, sees no key.
    const elsewhere = await new PagesBrowser().get(showTotpEnrolment, { request });
    expect(elsewhere.statusCode).toBe(400);
    expect(textOf(elsewhere)).not.toContain(secret);
    expect(alertOf(await browser.get(showTotpEnrolment, {}))).toBe(EXPIRED);

    // A wrong code: back to the same key, saying so, and a failure counted.
    const refusals = logged('TOTP enrolment code refused');
    const enrolments = logged('TOTP enrolled');
    const wrong = await browser.post(submitTotp, {
      request,
      code: '000000' === totpCodeAt(secret) ? '111111' : '000000',
    });
    expect(wrong.headers?.location).toBe(`/signin/enrol?request=${encodeURIComponent(request)}&retry=1`);
    expect(alertOf(await browser.get(showTotpEnrolment, { request, retry: '1' }))).toBe(WRONG_CODE);
    expect(await getItem(keys.signInFailures(shared.organization.id, user.email))).toMatchObject({
      failures: 1,
    });
    const owner = { organizationId: shared.organization.id, userId: user.id };
    expect(refusals()).toEqual([{ ...owner, consecutiveFailures: 1 }]);
    expect(metricsCounted()).toEqual(['MfaChallengesRefused']);
    expect(enrolments()).toEqual([]);
    expect(await recordedOf(user)).toEqual(['signin.failed wrong code at enrolment']);
    expect(await recordOf(user, 'signin.failed')).toMatchObject({
      outcome: 'failure',
      actor: { type: 'user', id: user.id, name: user.email, ip: browser.sourceIp },
      targets: [{ type: 'user', id: user.id, name: user.email }],
      signIn: { application: shared.application.id, amr: ['pwd'] },
    });

    // The step of the code sent is the one kept, whichever step the clock is in once it is checked.
    const codeTime = Date.now();
    const codesPage = await browser.post(submitTotp, { request, code: ` ${totpCodeAt(secret, codeTime)} ` });
    expect(codesPage.statusCode).toBe(200);
    const codes = [...textOf(codesPage).matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)];
    expect(codes).toHaveLength(10);
    const stored = await getUser(shared.organization.id, user.id, true);
    // Sealed (shared/auth/totp-sealing.ts): the item alone makes no codes.
    expect(stored?.totpSecret).toMatch(/^totp1\./);
    expect(stored?.totpSecret).not.toContain(secret);
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBe(secret);
    // Stored salted with the person's id (OWASP ASVS 2.6.2), never as a code's plain digest.
    expect(stored?.recoveryCodeDigests).toEqual(
      new Set(codes.map((match) => recoveryCodeDigest(user.id, match[1] as string))),
    );
    expect(stored?.recoveryCodeDigests?.has(digestOf(codes[0]?.[1] as string))).toBe(false);
    expect(stored?.totpLastStep).toBe(totpStep(codeTime));
    expect(enrolments()).toEqual([owner]);
    expect(metricsCounted()).toEqual(['MfaChallengesRefused', 'MfaEnrolments']);
    // Recorded with the secret it stored, which it names only.
    expect(await recordOf(user, 'mfa.enrolled')).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', id: user.id, name: user.email },
      targets: [{ type: 'user', id: user.id, name: user.email }],
      changes: { recoveryCodeDigests: 'changed', totpSecret: 'changed' },
      signIn: { application: shared.application.id, amr: ['pwd', 'otp', 'mfa'] },
    });
    expect(await recordedOf(user)).toEqual(['mfa.enrolled', 'signin.failed wrong code at enrolment']);
    const progress = await getItem(keys.authorizationRequest(request));
    expect(progress).toMatchObject({ amr: ['pwd', 'otp', 'mfa'] });
    expect(progress).not.toHaveProperty('totpEnrolment');
    // The enrolment page is gone once enrolled.
    expect(alertOf(await browser.get(showTotpEnrolment, { request }))).toBe(EXPIRED);

    const done = await browser.post(submitContinue, { request });
    expect(done.statusCode).toBe(303);
    expect(done.cookies).toEqual([expect.stringMatching(/^idp-session=/)]);
    expect(await grantOf(done)).toMatchObject({ userId: user.id, amr: ['pwd', 'otp', 'mfa'] });
    expect(await liveSession(browser.cookies.get('idp-session'))).toMatchObject({
      amr: ['pwd', 'otp', 'mfa'],
    });
    // Signed in once both steps are done, as the session says.
    expect(await recordOf(user, 'signin.succeeded')).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', id: user.id, name: user.email },
      signIn: { application: shared.application.id, amr: ['pwd', 'otp', 'mfa'] },
    });
  });

  it('ends a sign-in parked at enrolment once the password is reset: the old password finishes nothing', async () => {
    const parkAtEnrolment = async () => {
      const user = await personWithPassword(shared.organization.id);
      const browser = new PagesBrowser();
      const { request } = await afterPassword(browser, user);
      return { user, browser, request, secret: await enrolmentSecret(request) };
    };
    // Positive control: without a reset the parked request enrols.
    const control = await parkAtEnrolment();
    const enrolled = await control.browser.post(submitTotp, {
      request: control.request,
      code: totpCodeAt(control.secret),
    });
    expect(enrolled.statusCode).toBe(200);

    const parked = await parkAtEnrolment();
    const { user } = parked;
    const link = await issueResetLink(
      user,
      { organizationId: user.organizationId, userId: user.id, to: user.email, name: user.name },
      3600,
    );
    const live = link && (await livePasswordLink(link.token));
    if (!link || !live) throw new Error('No live reset link');
    expect(await setPasswordWithLink(link.token, live.link, await hashPassword(`${PASSWORD} anew`))).toBe(
      true,
    );
    const refused = await parked.browser.post(submitTotp, {
      request: parked.request,
      code: totpCodeAt(parked.secret),
    });
    expect(refused.statusCode).toBe(400);
    expect((await getUser(shared.organization.id, user.id, true))?.totpSecret).toBeUndefined();
  });

  it('shows the key of an organization whose long name would not fit a QR code: the label is cut', async () => {
    const name = '認証'.repeat(100);
    const longNamed = await signInSetup({ mfaEnabled: true, name });
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(longNamed.application.id));
    const request = requestIdOf(form);
    await browser.post(submitSignIn, { request, email: longNamed.user.email, password: PASSWORD });
    const shown = await browser.get(showTotpEnrolment, { request });
    expect(shown.statusCode).toBe(200);
    expect(textOf(shown)).toContain(`<code>${await enrolmentSecret(request)}</code>`);
    expect(textOf(shown)).toContain(`otpauth://totp/${encodeURIComponent(name.slice(0, 40))}:`);
    expect(textOf(shown)).toContain('class="qr"');
  });

  it('keeps the key offered while the person retries the password in the same request', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const secret = await enrolmentSecret(request);
    await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
    expect(await enrolmentSecret(request)).toBe(secret);
  });

  it('refuses the enrolment of a second browser once the first one enrolled', async () => {
    const user = await personWithPassword(shared.organization.id);
    const [first, second] = [new PagesBrowser(), new PagesBrowser()];
    const a = await afterPassword(first, user);
    const b = await afterPassword(second, user);
    const [secretA, secretB] = [await enrolmentSecret(a.request), await enrolmentSecret(b.request)];
    expect((await first.post(submitTotp, { request: a.request, code: totpCodeAt(secretA) })).statusCode).toBe(
      200,
    );
    const late = await second.post(submitTotp, { request: b.request, code: totpCodeAt(secretB) });
    expect(late.statusCode).toBe(409);
    expect(alertOf(late)).toBe(
      'Two-step verification was set up meanwhile. Go back to the application and sign in again; if you did not see your recovery codes, make new ones on your account page.',
    );
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBe(secretA);
  });

  it('shows no key to a person deactivated meanwhile', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    await setUserStatus(shared.organization.id, user.id, 'INACTIVE');
    const page = await browser.get(showTotpEnrolment, { request });
    expect(page.statusCode).toBe(403);
    expect(alertOf(page)).toBe('This account cannot sign in. Contact your administrator.');
    const code = await browser.post(submitTotp, {
      request,
      code: totpCodeAt(await enrolmentSecret(request)),
    });
    expect(code.statusCode).toBe(403);
    expect(alertOf(code)).toBe('This account cannot sign in. Contact your administrator.');
  });

  it('reads the person consistently on every step, so a deactivation is seen at once', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const userReads = async (step: () => Promise<unknown>) =>
      (await measureRoundTrips('step', step)).recorded.filter(
        (call) => call.command === 'GetCommand' && JSON.stringify(call.input).includes(`USER#${user.id}`),
      );
    const page = await userReads(() => browser.get(showTotpEnrolment, { request }));
    const form = await userReads(() => browser.post(submitContinue, { request }));
    for (const read of [...page, ...form]) expect(read.input).toMatchObject({ ConsistentRead: true });
    expect(page.length * form.length).toBeGreaterThan(0);
  });
});

describe('the code challenge', () => {
  it('accepts a secret stored before sealing, and seals it with the code it accepts', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { user, secret } = await enrolledPerson();
    // As an earlier release stored it: the secret itself.
    await updateUserAttributes(shared.organization.id, user.id, { totpSecret: secret });
    for (const _ of ['sealed by this code', 'opened from then on']) {
      vi.advanceTimersByTime(30_000);
      const browser = new PagesBrowser();
      const { request } = await afterPassword(browser, user);
      expect((await browser.post(submitTotp, { request, code: totpCodeAt(secret) })).statusCode).toBe(303);
      expect((await getUser(shared.organization.id, user.id, true))?.totpSecret).toMatch(/^totp1\./);
    }
    expect(await storedTotpSecret(shared.organization.id, user.id)).toBe(secret);
  });

  it("refuses the codes of a sealed secret copied onto another person's item", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const [mine, theirs] = await Promise.all([enrolledPerson(), enrolledPerson()]);
    vi.advanceTimersByTime(30_000);
    // The positive control: the secret's codes sign its own person in.
    const own = new PagesBrowser();
    const ownRequest = (await afterPassword(own, theirs.user)).request;
    expect(
      (await own.post(submitTotp, { request: ownRequest, code: totpCodeAt(theirs.secret) })).statusCode,
    ).toBe(303);
    // Someone who can write the table but not read the key copies it onto their own item.
    await updateUserAttributes(shared.organization.id, mine.user.id, { totpSecret: theirs.user.totpSecret });
    vi.advanceTimersByTime(30_000);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, mine.user);
    const refused = await browser.post(submitTotp, { request, code: totpCodeAt(theirs.secret) });
    expect(refused.statusCode).toBe(401);
    expect(alertOf(refused)).toBe(WRONG_CODE);
  });

  it('asks an enrolled person for a code and accepts each time step once', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { user, secret } = await enrolledPerson();
    vi.advanceTimersByTime(30_000);
    const browser = new PagesBrowser();
    const { request, page } = await afterPassword(browser, user);
    expect(page.statusCode).toBe(200);
    expect(requestIdOf(page)).toBe(request);
    expect(textOf(page)).toContain('Two-step verification');
    expect(page.cookies).toBeUndefined();
    const code = totpCodeAt(secret);
    const refusals = logged('TOTP code refused');
    const done = await browser.post(submitTotp, { request, code });
    expect(done.statusCode).toBe(303);
    expect(metricsCounted()).not.toContain('RecoveryCodesUsed');
    expect(await grantOf(done)).toMatchObject({ userId: user.id, amr: ['pwd', 'otp', 'mfa'] });
    expect(await recordOf(user, 'signin.succeeded')).toMatchObject({
      signIn: { application: shared.application.id, amr: ['pwd', 'otp', 'mfa'] },
    });

    // The same code again, in another sign-in: refused (RFC 6238 5.2).
    const again = new PagesBrowser();
    const next = await afterPassword(again, user);
    const replay = await again.post(submitTotp, { request: next.request, code });
    expect(replay.statusCode).toBe(401);
    expect(alertOf(replay)).toBe(WRONG_CODE);
    expect(requestIdOf(replay)).toBe(next.request);
    expect(refusals()).toEqual([
      { organizationId: shared.organization.id, userId: user.id, consecutiveFailures: 1, locked: false },
    ]);
    expect(metricsCounted()).toContain('MfaChallengesRefused');
    expect(await recordOf(user, 'signin.failed')).toMatchObject({
      reason: 'wrong code',
      outcome: 'failure',
      signIn: { application: shared.application.id, amr: ['pwd'] },
    });
    // The previous step's code is older than the one accepted: refused as well.
    const older = await again.post(submitTotp, {
      request: next.request,
      code: totpCodeAt(secret, Date.now() - 30_000),
    });
    expect(older.statusCode).toBe(401);
    vi.advanceTimersByTime(30_000);
    expect(
      (await again.post(submitTotp, { request: next.request, code: totpCodeAt(secret) })).statusCode,
    ).toBe(303);
  });

  it('accepts a recovery code once, as typed, without otp in amr', async () => {
    const { user, codes } = await enrolledPerson();
    const [code = ''] = codes;
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const used = logged('recovery code used');
    vi.mocked(countMetric).mockClear();
    const done = await browser.post(submitTotp, { request, code: code.toUpperCase().replace('-', ' ') });
    expect(done.statusCode).toBe(303);
    expect(used()).toEqual([{ organizationId: shared.organization.id, userId: user.id }]);
    expect(metricsCounted()).toContain('RecoveryCodesUsed');
    expect(await grantOf(done)).toMatchObject({ amr: ['pwd', 'mfa'] });
    expect(await recordOf(user, 'signin.succeeded')).toMatchObject({
      signIn: { application: shared.application.id, amr: ['pwd', 'mfa'] },
    });
    expect((await getUser(shared.organization.id, user.id, true))?.recoveryCodeDigests?.size).toBe(9);

    const again = new PagesBrowser();
    const next = await afterPassword(again, user);
    expect((await again.post(submitTotp, { request: next.request, code })).statusCode).toBe(401);
    expect((await again.post(submitTotp, { request: next.request, code: codes[1] ?? '' })).statusCode).toBe(
      303,
    );
  });

  it('still accepts, once, a recovery code stored before codes were salted', async () => {
    const { user, codes } = await enrolledPerson();
    const [code = ''] = codes;
    await updateUserAttributes(shared.organization.id, user.id, {
      recoveryCodeDigests: new Set([digestOf(code)]),
    });
    const first = new PagesBrowser();
    const { request } = await afterPassword(first, user);
    expect((await first.post(submitTotp, { request, code })).statusCode).toBe(303);
    const again = new PagesBrowser();
    const next = await afterPassword(again, user);
    expect((await again.post(submitTotp, { request: next.request, code })).statusCode).toBe(401);
  });

  it('locks the person out after five wrong codes, even for a right one, and a right one then clears the count', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const { user, secret } = await enrolledPerson();
    vi.advanceTimersByTime(30_000);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const wrong = totpCodeAt(secret) === '123456' ? '654321' : '123456';
    const refusals = logged('TOTP code refused');
    vi.mocked(countMetric).mockClear();
    for (let failure = 1; failure <= 4; failure++) {
      expect((await browser.post(submitTotp, { request, code: wrong })).statusCode).toBe(401);
    }
    expect(metricsCounted()).not.toContain('SignInLockouts');
    expect((await browser.post(submitTotp, { request, code: wrong })).statusCode).toBe(401);
    expect(metricsCounted().filter((name) => name === 'SignInLockouts')).toHaveLength(1);
    expect(await signInLockedUntil(shared.organization.id, user.email)).toBe(Date.now() + 60_000);
    expect((await browser.post(submitTotp, { request, code: totpCodeAt(secret) })).statusCode).toBe(401);
    // The moment the lock ends, a code is checked again: a wrong one is a failure, not locked.
    vi.setSystemTime(await signInLockedUntil(shared.organization.id, user.email));
    expect((await browser.post(submitTotp, { request, code: wrong })).statusCode).toBe(401);
    expect(
      refusals().map((fields) => [
        (fields as { locked: boolean }).locked,
        (fields as { consecutiveFailures: number }).consecutiveFailures,
      ]),
    ).toEqual([
      [false, 1],
      [false, 2],
      [false, 3],
      [false, 4],
      [false, 5],
      [true, 6],
      [false, 7],
    ]);
    vi.setSystemTime(await signInLockedUntil(shared.organization.id, user.email));
    expect((await browser.post(submitTotp, { request, code: totpCodeAt(secret) })).statusCode).toBe(303);
    expect(await getItem(keys.signInFailures(shared.organization.id, user.email))).toBeUndefined();
    // The failure that locks, and the first one after a lock ended, lock; one while locked fails.
    expect(await recordedOf(user)).toEqual(
      [
        'mfa.enrolled',
        ...Array.from({ length: 4 }, () => 'signin.failed wrong code'),
        'signin.locked wrong code',
        'signin.failed locked',
        'signin.locked wrong code',
        'signin.succeeded',
      ].sort(),
    );
  });

  it('keeps the lock wrong codes earned through a password reset, which clears one wrong passwords earned', async () => {
    const reset = async (user: UserRecord) => {
      const { pages, token, csrf } = await resetForm(user);
      const password = 'another long passphrase';
      const done = await pages.post(submitPasswordLink('reset'), {
        token,
        csrf,
        password,
        confirm: password,
      });
      expect(done.statusCode).toBe(200);
    };
    // Positive control: without a second factor, a reset clears a lock of wrong passwords.
    const plain = await personWithPassword(shared.organization.id);
    for (let failure = 0; failure < 5; failure++)
      await recordSignInFailure(shared.organization.id, plain.email, lockoutMillis);
    expect(await signInLockedUntil(shared.organization.id, plain.email)).toBeGreaterThan(Date.now());
    await reset(plain);
    expect(await signInLockedUntil(shared.organization.id, plain.email)).toBe(0);
    // With one, five wrong codes lock the person, and whoever reads the mailbox cannot unlock them.
    const { user, secret } = await enrolledPerson();
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const wrong = totpCodeAt(secret) === '123456' ? '654321' : '123456';
    for (let failure = 0; failure < 5; failure++) await browser.post(submitTotp, { request, code: wrong });
    const locked = await signInLockedUntil(shared.organization.id, user.email);
    expect(locked).toBeGreaterThan(Date.now());
    await reset(user);
    expect(await signInLockedUntil(shared.organization.id, user.email)).toBe(locked);
  });

  it('checks one code at a time per person: parallel guesses are not all checked before the lock', async () => {
    const { user, secret } = await enrolledPerson();
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    const right = totpCodeAt(secret);
    const guesses = Array.from({ length: 12 }, (_, index) =>
      String((Number(right) + 1 + index) % 1_000_000).padStart(6, '0'),
    );
    const answers = await Promise.all(guesses.map((code) => browser.post(submitTotp, { request, code })));
    expect(answers.every((answer) => answer.statusCode === 401)).toBe(true);
    const checked = (await recordedOf(user)).filter((entry) => entry.endsWith('wrong code'));
    // Five wrong codes lock the person; without the reservation nearly all twelve were checked.
    expect(checked.length).toBeGreaterThan(0);
    expect(checked.length).toBeLessThanOrEqual(5);
    expect(await getItem(keys.signInFailures(shared.organization.id, user.email))).toMatchObject({
      failures: 12,
    });
  });

  it('keeps counting failures across the password and the code: a right password alone clears nothing', async () => {
    const { user, secret } = await enrolledPerson();
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    await browser.post(submitTotp, { request, code: totpCodeAt(secret) === '123456' ? '654321' : '123456' });
    await afterPassword(new PagesBrowser(), user);
    expect(await getItem(keys.signInFailures(shared.organization.id, user.email))).toMatchObject({
      failures: 1,
    });
  });

  it('reads at most 32 characters of a code, as the form allows', async () => {
    const { user, codes } = await enrolledPerson();
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    // What follows the 32nd character is not read: here, all but spaces.
    const typed = `${codes[0]}${' '.repeat(25)}x`;
    expect((await browser.post(submitTotp, { request, code: typed })).statusCode).toBe(303);
  });

  it('throttles codes from one address past the limit a minute', async () => {
    const { user, secret } = await enrolledPerson();
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    process.env.IDP_SIGNIN_ATTEMPTS_PER_MINUTE = '1';
    reloadConfig();
    const throttled = await browser.post(submitTotp, { request, code: totpCodeAt(secret) });
    expect(throttled.statusCode).toBe(429);
  });
});

describe('the step forms refuse', () => {
  it('a form that cannot be read, or whose request is not this browser’s or knows no person yet', async () => {
    const browser = new PagesBrowser();
    const unreadable = await browser.open(submitContinue, {});
    expect(unreadable.statusCode).toBe(400);
    expect(alertOf(unreadable)).toBe(
      'The form could not be read. Go back to the application and start again.',
    );
    const user = await personWithPassword(shared.organization.id);
    const { request } = await afterPassword(browser, user);
    // Positive control: this browser's request goes on (to the enrolment again).
    expect((await browser.post(submitContinue, { request })).statusCode).toBe(303);
    expect(alertOf(await new PagesBrowser().post(submitContinue, { request }))).toBe(EXPIRED);
    const before = await browser.get(authorize, authorizationQuery(shared.application.id));
    expect(alertOf(await browser.post(submitContinue, { request: requestIdOf(before) }))).toBe(EXPIRED);
    expect(alertOf(await browser.post(submitTotp, { request: requestIdOf(before), code: '123456' }))).toBe(
      EXPIRED,
    );
  });

  it('a reset form over 64 KiB as one that cannot be read (400), not as one from elsewhere (403)', async () => {
    const { pages, token, csrf } = await resetForm(await personWithPassword(shared.organization.id));
    // Positive control: the same form, this browser's token, a password too short: the form's answer.
    const short = await pages.post(submitPasswordLink('reset'), { token, csrf, password: 'x', confirm: 'x' });
    expect(short.statusCode).toBe(400);
    const huge = 'x'.repeat(70 * 1024);
    const oversized = await pages.post(submitPasswordLink('reset'), {
      token,
      csrf,
      password: huge,
      confirm: huge,
    });
    expect(oversized.statusCode).toBe(400);
    expect(alertOf(oversized)).toBe('This form could not be read. Open the link from your email again.');
    expect(
      (await pages.post(submitPasswordLink('reset'), { token, csrf: 'other', password: 'x', confirm: 'x' }))
        .statusCode,
    ).toBe(403);
  });

  it('a request completed meanwhile: of two answers only one gets a code', async () => {
    const user = await personWithPassword(shared.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user);
    await browser.post(submitTotp, { request, code: totpCodeAt(await enrolmentSecret(request)) });
    const answers = await Promise.all([
      browser.post(submitContinue, { request }),
      browser.post(submitContinue, { request }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 400]);
    expect(alertOf(answers.find((answer) => answer.statusCode === 400) as Page)).toBe(EXPIRED);
  });
});

describe('a live session of a person who has not passed two steps', () => {
  it('is asked for the code; with prompt=none the application hears interaction_required', async () => {
    const organization = await signInSetup();
    const browser = new PagesBrowser();
    const form = await browser.get(authorize, authorizationQuery(organization.application.id));
    const signedIn = await browser.post(submitSignIn, {
      request: requestIdOf(form),
      email: organization.user.email,
      password: PASSWORD,
    });
    expect(signedIn.statusCode).toBe(303);
    await setMfaEnabled(organization.organization.id, true);
    const none = await browser.get(
      authorize,
      authorizationQuery(organization.application.id, { prompt: 'none' }),
    );
    expect(Object.fromEntries(locationOf(none).searchParams)).toEqual({
      error: 'interaction_required',
      error_description: 'The person must complete two-step verification',
      state: 'state-1',
      iss: 'http://localhost',
    });
    // A browser without its binding cookie gets one with the new request.
    browser.cookies.delete('idp-browser');
    const asked = await browser.get(authorize, authorizationQuery(organization.application.id));
    expect(asked.statusCode).toBe(303);
    expect(asked.cookies).toEqual([expect.stringMatching(/^idp-browser=/)]);
    const request = new URLSearchParams(String(asked.headers?.location).split('?')[1]).get('request') ?? '';
    expect(String(asked.headers?.location)).toBe(`/signin/enrol?request=${encodeURIComponent(request)}`);
    expect(await getItem(keys.authorizationRequest(request))).toMatchObject({
      userId: organization.user.id,
      amr: ['pwd'],
    });
    expect((await browser.get(showTotpEnrolment, { request })).statusCode).toBe(200);
  });
});
