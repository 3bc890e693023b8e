import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../shared/auth/passwords.js';
import { base32Decode, hotp, totpStep } from '../../shared/domain/totp.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { BrowserSession, hiddenField } from '../support/browser-session.js';
import { type Caller, uniqueEmail, useService } from '../support/service.js';
import {
  type Application,
  emailedLink,
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

beforeAll(async () => {
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

    const accepted = await choosePassword(link, PASSWORD);
    expect(accepted.answer.status).toBe(200);
    expect(accepted.text).toContain('Your password is set');
    const again = await choosePassword(link, 'another long password');
    expect(again.form.status).toBe(410);

    const flow = await signIn(service, rp, { email: person.email });
    expect((await exchange(rp, flow)).access_token).toBeTruthy();
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
    // Nothing changed: the link still works, once, from the browser that opened it.
    const accepted = await invited.submit(`${service.baseUrl}/signin/invitation`, fields);
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain('Your password is set');
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
  return { ...person, browser: flow.browser, tokens: await exchange(rp, flow) };
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
    const known = await forgotPassword(person.email);
    const unknown = await forgotPassword(uniqueEmail('nobody'));
    expect(known.answer.status).toBe(200);
    expect(unknown.answer.status).toBe(200);
    expect(unknown.text).toBe(known.text);
    // Both wait for the same floor, so an unknown email is not told apart by a quick answer:
    // forgot-password-floor.unit.test.ts, on a faked clock.
    await expect(emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL')).resolves.toContain(
      '/signin/reset?token=',
    );
  });

  it("sets a new password once and ends the person's sessions and refresh tokens", async () => {
    const person = await signedInPerson();
    await forgotPassword(person.email);
    const voided = await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL');
    await forgotPassword(person.email);
    const link = await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL');
    expect((await new BrowserSession().fetch(voided)).status).toBe(410);

    const changed = await choosePassword(link, 'a brand new passphrase');
    expect(changed.answer.status).toBe(200);
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
  });
});

describe('two-step verification (TOTP)', () => {
  let admin: Caller;
  let mfaApp: Application;
  let mfaRp: oidc.Configuration;

  beforeAll(async () => {
    admin = await service.freshOrganization({ mfaEnabled: true });
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

  const codeOf = (secret: string, step: number) => hotp(base32Decode(secret), step);

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
    const done = await flow.browser.submit(`${service.baseUrl}/signin/continue`, {
      request: hiddenField(codesPage, 'request') ?? '',
    });
    const location = new URL(done.headers.get('location') ?? '');
    return { secret, step, codes, tokens: await exchange(mfaRp, { ...flow, location }) };
  };

  /** Signs in with the password, then answers the challenge with `code`. */
  const challenge = async (email: string, code: string) => {
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
    expect(decodeJwt(tokens.id_token ?? '').amr).toEqual(['pwd', 'otp', 'mfa']);

    // The code that confirmed enrolment was used: its time step is refused, the next one accepted.
    expect((await challenge(person.email, codeOf(secret, step))).answer.status).toBe(401);
    const next = await challenge(person.email, codeOf(secret, step + 1));
    expect(decodeJwt((await exchange(mfaRp, next)).id_token ?? '').amr).toEqual(['pwd', 'otp', 'mfa']);

    const [recovery = ''] = codes;
    const recovered = await challenge(person.email, recovery.toUpperCase());
    expect(decodeJwt((await exchange(mfaRp, recovered)).id_token ?? '').amr).toEqual(['pwd', 'mfa']);
    expect((await challenge(person.email, recovery)).answer.status).toBe(401);
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
    const tokens = await exchange(rp, { ...flow, location: new URL(yes.headers.get('location') ?? '') });
    const status = await service.call<{ accepted: boolean }>('GET', '/idp/consent', {
      token: tokens.access_token,
    });
    expect(status.body).toEqual({ accepted: true });
    // With a session and the consent given, prompt=none now answers a code.
    const again = await signIn(service, rp, {
      email: other.email,
      browser: flow.browser,
      extra: { prompt: 'none' },
    });
    expect(again.location?.searchParams.get('code')).toBeTruthy();
  });
});
