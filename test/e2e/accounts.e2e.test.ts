import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../shared/auth/passwords.js';
import { base32Decode, hotp, totpStep } from '../../shared/domain/totp.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { RESET_EMAIL_INTERVAL_MILLIS } from '../../shared/store/credentials.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { auditTrail, storedAuditItems } from '../support/audit.js';
import { BrowserSession, hiddenField } from '../support/browser-session.js';
import { type Caller, uniqueEmail, useService } from '../support/service.js';
import {
  type Application,
  emailedLink as emailedLinkOf,
  emailsTo,
  exchange,
  newApplication,
  PASSWORD,
  relyingParty,
  signIn,
  startSignIn,
} from '../support/sign-in-flow.js';

const service = useService();

let application: Application;
let rp: oidc.Configuration;

/**
 * Every password, link token, TOTP secret and code, recovery code, authorization code and token
 * these tests used, and the organizations they used them in: the last test searches every audit
 * item stored there for them.
 */
const used = new Set<string>();
const organizationsUsed = new Set<string>();
const keep = (...values: (string | undefined | null)[]) => {
  // An email typed as a password (refused as one) is no secret: records name people by it.
  for (const value of values) if (value && !value.includes('@')) used.add(value);
};

/** An emailed link, its token kept. */
const emailedLink = async (...args: Parameters<typeof emailedLinkOf>) => {
  const link = await emailedLinkOf(...args);
  keep(new URL(link).searchParams.get('token'));
  return link;
};

/** The code of a sign-in exchanged as the application would; the code and the tokens kept. */
const exchanged = async (configuration: oidc.Configuration, flow: Parameters<typeof exchange>[1]) => {
  keep(flow.location?.searchParams.get('code'));
  const tokens = await exchange(configuration, flow);
  keep(tokens.access_token, tokens.id_token, tokens.refresh_token);
  return tokens;
};

beforeAll(async () => {
  organizationsUsed.add(service.organizationId);
  keep(PASSWORD);
  application = await newApplication(service);
  rp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
});

const createPerson = async (as: Caller = service.admin) => {
  const email = uniqueEmail('person');
  const id = await service.createUser({ email, name: 'Pat Person', as });
  return { id, email };
};

/** Opens an emailed link and submits the password form on it. */
const choosePassword = async (
  link: string,
  password: string,
  confirm = password,
  browser = new BrowserSession(),
) => {
  keep(password, confirm);
  const form = await browser.fetch(link);
  const html = await form.text();
  const action = new URL(link).pathname;
  const answer = await browser.submit(`${service.baseUrl}${action}`, {
    token: hiddenField(html, 'token') ?? '',
    csrf: hiddenField(html, 'csrf') ?? '',
    password,
    confirm,
  });
  return { form, html, answer, text: await answer.text() };
};

describe('invitation', () => {
  it('sets the first password through the join email link once; the person then signs in', async () => {
    const person = await createPerson();
    const link = await emailedLink(service, person.id, 'JOIN_EMAIL');
    expect(link).toMatch(new RegExp(`^${service.baseUrl}/signin/invitation\\?token=[\\w-]{43}$`));

    const weak = await choosePassword(link, '123456789012');
    expect(weak.form.status).toBe(200);
    expect(weak.html).toContain('<label for="password">New password</label>');
    expect(weak.html).toContain('<label for="confirm">Confirm password</label>');
    expect(weak.html).toContain(person.email);
    expect(weak.answer.status).toBe(400);
    expect(weak.text).toContain('most commonly used or breached');
    expect((await choosePassword(link, PASSWORD, `${PASSWORD}!`)).text).toContain('The two passwords differ');
    expect((await choosePassword(link, person.email)).text).toContain('Do not use your email');

    // Refused passwords change nothing, and record nothing.
    expect(await auditTrail(service.organizationId, { actorId: person.id })).toEqual([]);
    const accepted = await choosePassword(link, PASSWORD);
    expect(accepted.answer.status).toBe(200);
    expect(accepted.text).toContain('Your password is set');
    const again = await choosePassword(link, 'another long password');
    expect(again.form.status).toBe(410);

    const flow = await signIn(service, rp, { email: person.email });
    expect((await exchanged(rp, flow)).access_token).toBeTruthy();
    const records = await auditTrail(service.organizationId, { actorId: person.id });
    expect(records.map((record) => record.action)).toEqual(['invitation.accepted', 'signin.succeeded']);
    expect(records[0]).toMatchObject({
      outcome: 'success',
      actor: { type: 'user', id: person.id, name: person.email },
      targets: [{ type: 'user', id: person.id, name: person.email }],
      changes: { passwordHash: 'changed' },
    });
  });

  it('says email_verified once the person used a link sent to their email, and not after it changes', async () => {
    const verifiedOf = async (email: string, password = PASSWORD) => {
      const tokens = await exchanged(rp, await signIn(service, rp, { email, password }));
      const info = await oidc.fetchUserInfo(rp, tokens.access_token, tokens.claims()?.sub ?? '');
      return { idToken: tokens.claims()?.email_verified, userinfo: info.email_verified };
    };
    // Positive control: a person whose password was not set through a link has proven nothing.
    const unproven = await signedInPerson();
    expect(await verifiedOf(unproven.email)).toEqual({ idToken: false, userinfo: false });
    const person = await createPerson();
    await choosePassword(await emailedLink(service, person.id, 'JOIN_EMAIL'), PASSWORD);
    expect(await verifiedOf(person.email)).toEqual({ idToken: true, userinfo: true });
    // A new email is not proven by the old one's link; a link sent to it proves it.
    const newEmail = uniqueEmail('moved');
    const moved = await service.call('PUT', `/idp/users/${person.id}`, {
      token: service.admin.token,
      body: { name: 'Pat Person', email: newEmail },
    });
    expect(moved.status).toBe(200);
    expect(await verifiedOf(newEmail)).toEqual({ idToken: false, userinfo: false });
    await forgotPassword(newEmail);
    const newPassword = `${PASSWORD} again`;
    await choosePassword(await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL'), newPassword);
    expect(await verifiedOf(newEmail, newPassword)).toEqual({ idToken: true, userinfo: true });
  });

  it('refuses an invitation form posted from another browser, its own binding cookie valid (login CSRF)', async () => {
    // Positive control: an invitation's form, posted from the browser that opened it, sets the password.
    const control = await createPerson();
    const controlLink = await emailedLink(service, control.id, 'JOIN_EMAIL');
    expect((await choosePassword(controlLink, PASSWORD)).answer.status).toBe(200);

    const person = await createPerson();
    const invited = new BrowserSession();
    const html = await (await invited.fetch(await emailedLink(service, person.id, 'JOIN_EMAIL'))).text();
    const fields = {
      token: hiddenField(html, 'token') ?? '',
      csrf: hiddenField(html, 'csrf') ?? '',
      password: PASSWORD,
      confirm: PASSWORD,
    };
    // The other browser holds a binding cookie of its own, from starting its own sign-in.
    const other = (await startSignIn(rp)).browser;
    expect(other.cookies.get('idp-browser')).toBeTruthy();
    const refused = await other.submit(`${service.baseUrl}/signin/invitation`, fields);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('This form could not be verified');
    expect(await auditTrail(service.organizationId, { actorId: person.id })).toEqual([]);
    // Nothing changed: the link still works, once, from the browser that opened it.
    const accepted = await invited.submit(`${service.baseUrl}/signin/invitation`, fields);
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain('Your password is set');
    expect(
      (await auditTrail(service.organizationId, { actorId: person.id })).map((record) => record.action),
    ).toEqual(['invitation.accepted']);
  });

  it('voids the earlier link when the join email is sent again', async () => {
    const person = await createPerson();
    const first = await emailedLink(service, person.id, 'JOIN_EMAIL');
    const resent = await service.call('PUT', `/idp/users/${person.id}/resendJoinEmail`, {
      token: service.admin.token,
    });
    expect(resent.status).toBe(204);
    const second = await emailedLink(service, person.id, 'JOIN_EMAIL');
    expect(second).not.toBe(first);
    expect((await new BrowserSession().fetch(first)).status).toBe(410);
    expect((await choosePassword(second, PASSWORD)).answer.status).toBe(200);
  });

  it('tells the person when a join link replaces a password they had, not when it sets their first', async () => {
    const person = await createPerson();
    const notices = () => emailsTo(service, person.id, 'SECURITY_NOTICE_EMAIL');
    expect(
      (await choosePassword(await emailedLink(service, person.id, 'JOIN_EMAIL'), PASSWORD)).answer.status,
    ).toBe(200);
    expect(await notices()).toEqual([]);
    // The join email sent again to a person who has a password: its link replaces it.
    const resent = await service.call('PUT', `/idp/users/${person.id}/resendJoinEmail`, {
      token: service.admin.token,
    });
    expect(resent.status).toBe(204);
    const replaced = await choosePassword(
      await emailedLink(service, person.id, 'JOIN_EMAIL'),
      'a password chosen through the join link',
    );
    expect(replaced.answer.status).toBe(200);
    expect(await notices()).toEqual([expect.objectContaining({ to: person.email })]);
  });

  it('answers a clear page for a made-up or malformed token', async () => {
    for (const token of ['x'.repeat(43), '', '<script>']) {
      const page = await fetch(`${service.baseUrl}/signin/invitation?token=${encodeURIComponent(token)}`);
      expect(page.status).toBe(410);
      const html = await page.text();
      expect(html).toContain('invitation link has expired');
      expect(html).not.toContain('<script>');
    }
  });
});

/** A person with a password who signed in once: a session in `browser` and a refresh token. */
const signedInPerson = async () => {
  const person = await createPerson();
  await updateUserAttributes(service.organizationId, person.id, {
    passwordHash: await hashPassword(PASSWORD),
  });
  const flow = await signIn(service, rp, { email: person.email });
  return { ...person, browser: flow.browser, tokens: await exchanged(rp, flow) };
};

const forgotPassword = async (email: string, browser = new BrowserSession()) => {
  const started = await startSignIn(rp, { browser });
  const request = hiddenField(await started.response.text(), 'request') ?? '';
  const form = await browser.fetch(`${service.baseUrl}/signin/forgot?request=${request}`);
  expect(await form.text()).toContain('<label for="email">Email</label>');
  const answer = await browser.submit(`${service.baseUrl}/signin/forgot`, { request, email });
  return { answer, text: await answer.text() };
};

describe('password reset', () => {
  it('answers the same whether or not the email exists, and emails only an existing one', async () => {
    const person = await signedInPerson();
    const since = Date.now();
    const known = await forgotPassword(person.email);
    const nobody = uniqueEmail('nobody');
    const unknown = await forgotPassword(nobody);
    expect(known.answer.status).toBe(200);
    expect(unknown.answer.status).toBe(200);
    expect(unknown.text).toBe(known.text);
    // Both wait for the same floor, so an unknown email is not told apart by a quick answer:
    // forgot-password-floor.unit.test.ts, on a faked clock.
    await expect(emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL')).resolves.toContain(
      '/signin/reset?token=',
    );
    // Recorded when a link is sent: for the existing email only, so probing writes nothing.
    const requested = await auditTrail(service.organizationId, { action: 'password.reset.requested', since });
    expect(requested).toEqual([
      expect.objectContaining({
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', id: person.id, name: person.email }),
        targets: [{ type: 'user', id: person.id, name: person.email }],
        signIn: { application: application.id },
      }),
    ]);
    expect(JSON.stringify(await auditTrail(service.organizationId, { since }))).not.toContain(nobody);
  });

  it("sets a new password once and ends the person's sessions and refresh tokens", async () => {
    const person = await signedInPerson();
    const since = Date.now();
    await forgotPassword(person.email);
    const voided = await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL');
    // Within five minutes another request sends nothing, and the link sent stays alive.
    await forgotPassword(person.email);
    expect(await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL')).toBe(voided);
    expect((await new BrowserSession().fetch(voided)).status).toBe(200);
    // Once they are over, a new link voids it.
    await updateUserAttributes(service.organizationId, person.id, {
      resetRequestedAt: Date.now() - RESET_EMAIL_INTERVAL_MILLIS - 1,
    });
    await forgotPassword(person.email);
    const link = await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL');
    expect(link).not.toBe(voided);
    expect((await new BrowserSession().fetch(voided)).status).toBe(410);

    expect(await emailsTo(service, person.id, 'SECURITY_NOTICE_EMAIL')).toEqual([]);
    const changed = await choosePassword(link, 'a brand new passphrase');
    expect(changed.answer.status).toBe(200);
    // The person hears of it (OWASP ASVS 2.5.5), in an email that carries no link.
    const [notice] = await emailsTo(service, person.id, 'SECURITY_NOTICE_EMAIL');
    expect(notice?.subject).toMatch(/^Your password for .+ was changed$/);
    expect(notice?.text).not.toMatch(/https?:/);
    expect((await new BrowserSession().fetch(link)).status).toBe(410);

    const refresh = await fetch(`${service.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${application.id}:${application.clientSecret}`)}`,
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: person.tokens.refresh_token ?? '',
      }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const silent = await signIn(service, rp, {
      email: person.email,
      browser: person.browser,
      extra: { prompt: 'none' },
    });
    expect(silent.location?.searchParams.get('error')).toBe('login_required');
    expect((await signIn(service, rp, { email: person.email })).answer?.status).toBe(401);
    const fresh = await signIn(service, rp, { email: person.email, password: 'a brand new passphrase' });
    expect(fresh.location?.searchParams.get('code')).toBeTruthy();
    keep(fresh.location?.searchParams.get('code'));
    const records = await auditTrail(service.organizationId, { actorId: person.id, since });
    expect(records.map((record) => `${record.action}${record.reason ? ` ${record.reason}` : ''}`)).toEqual([
      'password.reset.requested',
      'password.reset.requested',
      'password.reset',
      'signin.failed wrong password',
      'signin.succeeded',
    ]);
    expect(records[2]).toMatchObject({ changes: { passwordHash: 'changed' } });
    // The application's refresh token, ended by the reset, was refused: recorded as the client's.
    expect(
      (
        await auditTrail(service.organizationId, { action: 'token.refused', actorId: application.id, since })
      ).map((record) => record.reason),
    ).toEqual([
      "invalid_grant: The person's sign-ins were ended since this one (a new password, a deactivation or a sign-out everywhere); sign in again",
    ]);
  });
});

describe('two-step verification (TOTP)', () => {
  let admin: Caller;
  let mfaApp: Application;
  let mfaRp: oidc.Configuration;

  beforeAll(async () => {
    admin = await service.freshOrganization({ mfaEnabled: true });
    organizationsUsed.add(admin.orgId);
    mfaApp = await newApplication(service, admin);
    mfaRp = await relyingParty(service, mfaApp, oidc.ClientSecretBasic(mfaApp.clientSecret));
  });

  const mfaPerson = async () => {
    const person = await createPerson(admin);
    await updateUserAttributes(admin.orgId, person.id, { passwordHash: await hashPassword(PASSWORD) });
    return person;
  };

  const submitCode = (browser: BrowserSession, html: string, code: string) =>
    browser.submit(`${service.baseUrl}/signin/totp`, { request: hiddenField(html, 'request') ?? '', code });

  const codeOf = (secret: string, step: number) => {
    const code = hotp(base32Decode(secret), step);
    keep(code);
    return code;
  };

  /** Follows a 303 of the hosted pages in the same browser. */
  const follow = (browser: BrowserSession, answer: Response | undefined) => {
    expect(answer?.status).toBe(303);
    return browser.fetch(new URL(answer?.headers.get('location') ?? '', service.baseUrl).href);
  };

  /** Signs in with the password and enrols; answers the secret and the recovery codes. */
  const enrol = async (email: string) => {
    const flow = await signIn(service, mfaRp, { email });
    const enrolment = await follow(flow.browser, flow.answer);
    const html = await enrolment.text();
    expect(enrolment.status).toBe(200);
    expect(html).toContain('<label for="code">Authentication code</label>');
    expect(html).toContain('<svg class="qr"');
    const uri = /otpauth:\/\/totp\/[^<\s]+/.exec(html)?.[0] ?? '';
    const secret = new URL(uri.replaceAll('&amp;', '&')).searchParams.get('secret') ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    keep(secret);

    const step = totpStep(Date.now());
    const wrong = await submitCode(flow.browser, html, codeOf(secret, step + 5));
    const again = await follow(flow.browser, wrong);
    expect(await again.text()).toContain('The code is not right');
    expect(await (await new BrowserSession().fetch(again.url)).text()).toContain(
      'has expired or was opened in another browser',
    );
    const confirmed = await submitCode(flow.browser, html, codeOf(secret, step));
    const codesPage = await confirmed.text();
    const codes = [...codesPage.matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)].map(
      (match) => match[1] as string,
    );
    expect(codes).toHaveLength(10);
    keep(...codes, ...codes.map((code) => code.toUpperCase()));
    const done = await flow.browser.submit(`${service.baseUrl}/signin/continue`, {
      request: hiddenField(codesPage, 'request') ?? '',
    });
    const location = new URL(done.headers.get('location') ?? '');
    return { secret, step, codes, tokens: await exchanged(mfaRp, { ...flow, location }) };
  };

  /** Signs in with the password, then answers the challenge with `code`. */
  const challenge = async (email: string, code: string) => {
    keep(code);
    const flow = await signIn(service, mfaRp, { email });
    const html = (await flow.answer?.text()) ?? '';
    expect(html).toContain('Two-step verification');
    const answer = await submitCode(flow.browser, html, code);
    const location = answer.headers.get('location');
    return { ...flow, answer, location: location ? new URL(location) : undefined };
  };

  it('enrols at the first sign-in, then asks for a code, each code and recovery code accepted once', async () => {
    const person = await mfaPerson();
    const { secret, step, codes, tokens } = await enrol(person.email);
    // The person is told an authenticator app was set up (OWASP ASVS 2.5.5).
    expect(
      (await emailsTo(service, person.id, 'SECURITY_NOTICE_EMAIL')).map((notice) => notice.subject),
    ).toEqual([expect.stringMatching(/^An authenticator app was set up for /)]);
    expect(decodeJwt(tokens.id_token ?? '').amr).toEqual(['pwd', 'otp', 'mfa']);

    // The code that confirmed enrolment was used: its time step is refused, the next one accepted.
    expect((await challenge(person.email, codeOf(secret, step))).answer.status).toBe(401);
    const next = await challenge(person.email, codeOf(secret, step + 1));
    expect(decodeJwt((await exchanged(mfaRp, next)).id_token ?? '').amr).toEqual(['pwd', 'otp', 'mfa']);

    const [recovery = ''] = codes;
    const recovered = await challenge(person.email, recovery.toUpperCase());
    expect(decodeJwt((await exchanged(mfaRp, recovered)).id_token ?? '').amr).toEqual(['pwd', 'mfa']);
    expect((await challenge(person.email, recovery)).answer.status).toBe(401);
    // What the organization's log holds of it: the enrolment, each sign-in, each refused code.
    const records = await auditTrail(admin.orgId, { actorId: person.id });
    expect(records.map((record) => `${record.action}${record.reason ? ` ${record.reason}` : ''}`)).toEqual([
      'signin.failed wrong code at enrolment',
      'mfa.enrolled',
      'signin.succeeded',
      'signin.failed wrong code',
      'signin.succeeded',
      'signin.succeeded',
      'signin.failed wrong code',
    ]);
    expect(
      records.filter((record) => record.action === 'signin.succeeded').map((record) => record.signIn),
    ).toEqual([
      { application: mfaApp.id, amr: ['pwd', 'otp', 'mfa'] },
      { application: mfaApp.id, amr: ['pwd', 'otp', 'mfa'] },
      { application: mfaApp.id, amr: ['pwd', 'mfa'] },
    ]);
  });

  it('makes the person enrol again after resetMfa', async () => {
    const person = await mfaPerson();
    await enrol(person.email);
    const reset = await service.call('PUT', `/idp/users/${person.id}/resetMfa`, { token: admin.token });
    expect(reset.status).toBe(204);
    const { tokens } = await enrol(person.email);
    expect(tokens.access_token).toBeTruthy();
  });

  it('locks after 5 wrong codes, answering like a wrong code, and a right password does not unlock', async () => {
    const person = await mfaPerson();
    const { secret, step } = await enrol(person.email);
    const flow = await signIn(service, mfaRp, { email: person.email });
    const html = (await flow.answer?.text()) ?? '';
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await submitCode(flow.browser, html, '000000')).status).toBe(401);
    }
    const locked = await submitCode(flow.browser, html, codeOf(secret, step + 1));
    expect(locked.status).toBe(401);
    expect(await locked.text()).toContain('The code is not right');
    const passwordAgain = await signIn(service, mfaRp, { email: person.email });
    expect(passwordAgain.answer?.status).toBe(401);
    const refusals = (await auditTrail(admin.orgId, { actorId: person.id, action: 'signin.' }))
      .filter((record) => record.outcome === 'failure')
      .map((record) => `${record.action} ${record.reason}`);
    // The wrong code at enrolment counted too: the fourth wrong code was the fifth failure.
    expect(refusals).toEqual([
      'signin.failed wrong code at enrolment',
      ...Array(3).fill('signin.failed wrong code'),
      'signin.locked wrong code',
      ...Array(3).fill('signin.failed locked'),
    ]);
  });
});

// Last: once an agreement is published, every sign-in of this file's service asks for consent.
describe('consent to the latest agreement', () => {
  it('asks before the code; Decline answers access_denied, Accept records the consent', async () => {
    const earlier = await signedInPerson();
    const agreement = await publishAgreement('https://example.com/terms-v2');
    // A session cannot answer silently while consent is missing (OpenID Connect Core 3.1.2.6).
    const silent = await signIn(service, rp, {
      email: earlier.email,
      browser: earlier.browser,
      extra: { prompt: 'none' },
    });
    expect(silent.location?.searchParams.get('error')).toBe('consent_required');

    const other = await createPerson();
    await updateUserAttributes(service.organizationId, other.id, {
      passwordHash: await hashPassword(PASSWORD),
    });
    const declined = await signIn(service, rp, { email: other.email });
    const consentHtml = (await declined.answer?.text()) ?? '';
    expect(consentHtml).toContain('href="https://example.com/terms-v2"');
    const no = await declined.browser.submit(`${service.baseUrl}/signin/consent`, {
      request: hiddenField(consentHtml, 'request') ?? '',
      agreement: agreement.id,
      decision: 'decline',
    });
    expect(new URL(no.headers.get('location') ?? '').searchParams.get('error')).toBe('access_denied');

    const flow = await signIn(service, rp, { email: other.email });
    const html = (await flow.answer?.text()) ?? '';
    const yes = await flow.browser.submit(`${service.baseUrl}/signin/consent`, {
      request: hiddenField(html, 'request') ?? '',
      agreement: agreement.id,
      decision: 'accept',
    });
    const tokens = await exchanged(rp, { ...flow, location: new URL(yes.headers.get('location') ?? '') });
    const status = await service.call<{ accepted: boolean }>('GET', '/idp/consent', {
      token: tokens.access_token,
    });
    expect(status.body).toEqual({ accepted: true });
    expect(
      await auditTrail(service.organizationId, { actorId: other.id, action: 'consent.accepted' }),
    ).toEqual([
      expect.objectContaining({
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', id: other.id, name: other.email }),
        targets: [{ type: 'agreement', id: agreement.id }],
      }),
    ]);
    // With a session and the consent given, prompt=none now answers a code.
    const again = await signIn(service, rp, {
      email: other.email,
      browser: flow.browser,
      extra: { prompt: 'none' },
    });
    expect(again.location?.searchParams.get('code')).toBeTruthy();
  });
});

describe('the audit records of these sign-ins', () => {
  it('hold none of the passwords, link tokens, TOTP secrets and codes, recovery codes, codes and tokens used', async () => {
    const items = (await Promise.all([...organizationsUsed].map(storedAuditItems))).flat();
    const text = items.map((item) => JSON.stringify(item)).join('\n');
    // Positive control: the search reads every kind of record these tests wrote, and finds what they do hold.
    const actions = new Set(items.map((item) => item.action));
    for (const action of [
      'invitation.accepted',
      'password.reset.requested',
      'password.reset',
      'mfa.enrolled',
      'signin.succeeded',
      'signin.failed',
      'signin.locked',
      'consent.accepted',
      'token.refused',
    ]) {
      expect(actions, action).toContain(action);
    }
    // What a record shows of a secret: its field's name, and "changed".
    expect(text).toMatch(/totpSecret\W+changed/);
    expect(used.size).toBeGreaterThan(50);
    // A six-digit code inside a longer number (a record's timestamp) is chance, not the code: a
    // number is looked for whole, as a stored code would stand (between quotes).
    const holds = (value: string) =>
      /^\d+$/.test(value) ? new RegExp(`(?<!\\d)${value}(?!\\d)`).test(text) : text.includes(value);
    const found = [...used].filter(holds);
    expect(found).toEqual([]);
  });
});
