import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep } from '../../shared/domain/totp.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { configureSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { launchChromium, pageProblems, screenshotter } from '../support/chromium.js';
import { type ClientCaller, newRole, rolesApi, uniqueEmail, useService } from '../support/service.js';
import {
  authorizationRequest,
  emailedLink,
  exchange,
  PASSWORD,
  registerApplication,
  relyingParty,
} from '../support/sign-in-flow.js';
import { startUpstreamProvider } from '../support/upstream-provider.js';

/**
 * One person's way through the hosted pages in Chromium, as issue 14 describes it: invitation,
 * first password, sign-in, TOTP enrolment, consent, the code back to the application, tokens,
 * the API, refresh, logout; then a code at the next sign-in, a reset by email, and a lockout.
 * The steps build on each other, in order. Screenshots (IDP_TEST_SCREENSHOTS=1) land in .tmp/screenshots/sign-in.
 */

const service = useService();
const shot = screenshotter('sign-in');
const NEW_PASSWORD = 'a different long passphrase';
const AGREEMENT_URL = 'https://example.com/terms-2026';

let browser: Browser;
let page: Page;
let admin: ClientCaller;
let rp: oidc.Configuration;
let application: Server;
let callback: string;
let afterLogout: string;
let problems: string[];
const person = {
  id: '',
  email: uniqueEmail('robin'),
  secret: '',
  enrolledStep: 0,
  recoveryCodes: [] as string[],
};
let earlierRefreshToken = '';

beforeAll(async () => {
  [browser, admin] = await Promise.all([
    launchChromium(),
    service.freshOrganization({ mfaEnabled: true, name: 'Acme Robotics' }),
  ]);
  // The application's own pages: the browser arrives there with the code, and after logout.
  // (Playwright's request routing does not see redirects, so a real server answers.)
  application = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Application</title><h1>Back in the application</h1>');
  });
  await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(application.address() as AddressInfo).port}`;
  callback = `${origin}/callback`;
  afterLogout = `${origin}/signed-out`;
  const registered = await registerApplication(
    service,
    { flowType: 'authorization_code', redirectUris: [callback], postLogoutRedirectUris: [afterLogout] },
    admin,
  );
  expect(registered.status).toBe(201);
  rp = await relyingParty(service, registered.body, oidc.ClientSecretBasic(registered.body.clientSecret));
  await publishAgreement(AGREEMENT_URL);
  page = await browser.newPage();
  problems = pageProblems(page);
});

afterEach(() => {
  expect(problems).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  application?.close();
});

/** Opens the authorization endpoint as the application sends the person there. */
const authorize = async (extra: Record<string, string> = {}, application = rp) => {
  const { url, ...request } = await authorizationRequest(application, callback, extra);
  await page.goto(url.href);
  return request;
};

/** The redirect back to the application, once the browser has arrived there. */
const backAtApplication = async () => {
  await page.waitForURL(`${callback}?**`);
  return new URL(page.url());
};

const heading = () => page.getByRole('heading', { level: 1 }).textContent();

/** Signs out as a person does without an application's ID token hint: the page asks first. */
const signOut = async (screenshots = false) => {
  await page.goto(`${service.baseUrl}/oauth2/logout`);
  expect(await heading()).toBe('Sign out?');
  if (screenshots) await shot(page, 'sign-out-confirmation');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect.poll(heading).toBe('Signed out');
  if (screenshots) await shot(page, 'signed-out');
};

const submitPassword = async (email: string, password: string) => {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
};

const submitCode = async (code: string) => {
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
};

/** Chooses a password on an invitation or reset page. */
const choosePassword = async (password: string, button: string) => {
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: button }).click();
  await expect.poll(heading).toBe('Your password is set');
  await shot(page, 'password-set');
};

describe('a person in Chromium', () => {
  it('accepts the invitation, enrols TOTP, accepts the agreement, and the application gets working tokens', async () => {
    await newRole(rolesApi(service, admin.token), 'Role reader', ['ROLES.LIST']);
    person.id = await service.createUser({ email: person.email, name: 'Robin Browser', as: admin });
    const granted = await service.call('PUT', `/idp/users/${person.id}/roles/Role%20reader/grant`, {
      token: admin.token,
    });
    expect(granted.status).toBe(204);

    const invitation = await emailedLink(service, person.id, 'JOIN_EMAIL');
    await page.goto(invitation);
    expect(await heading()).toBe('Welcome! Choose your password');
    await expect.poll(() => page.getByLabel('Email').inputValue()).toBe(person.email);
    await shot(page, 'invitation');
    await choosePassword(PASSWORD, 'Set password');
    expect((await page.goto(invitation))?.status()).toBe(410);
    expect(await heading()).toBe('Something went wrong');
    await shot(page, 'error-link-used');

    const flow = await authorize();
    expect(await page.title()).toBe('Sign in to Acme Robotics');
    await shot(page, 'sign-in');
    await submitPassword(person.email, PASSWORD);

    await expect.poll(heading).toBe('Set up two-step verification');
    expect(await page.getByRole('img', { name: 'QR code of the authenticator key' }).isVisible()).toBe(true);
    person.secret = (await page.locator('code').first().textContent()) ?? '';
    expect(person.secret).toMatch(/^[A-Z2-7]{32}$/);
    await shot(page, 'totp-enrolment');
    person.enrolledStep = totpStep(Date.now());
    await submitCode(hotp(base32Decode(person.secret), person.enrolledStep));

    await expect.poll(heading).toBe('Save your recovery codes');
    person.recoveryCodes = await page.locator('ul.codes li').allTextContents();
    expect(person.recoveryCodes).toHaveLength(10);
    await shot(page, 'recovery-codes');
    await page.getByRole('button', { name: 'Continue' }).click();

    await expect.poll(heading).toBe('Accept the agreement');
    expect(await page.getByRole('link', { name: 'the agreement' }).getAttribute('href')).toBe(AGREEMENT_URL);
    await shot(page, 'consent');
    await page.getByRole('button', { name: 'Accept' }).click();

    // Chromium has WebAuthn: a passkey is offered (test/browser/passkeys.browser.test.ts takes it).
    await expect.poll(heading).toBe('Sign in faster with a passkey');
    await page.getByRole('button', { name: 'Not now' }).click();

    const location = await backAtApplication();
    expect(location.searchParams.get('state')).toBe(flow.state);
    const tokens = await exchange(rp, { ...flow, location });
    expect(tokens.claims()).toMatchObject({
      sub: person.id,
      email: person.email,
      amr: ['pwd', 'otp', 'mfa'],
    });

    // Within the person's permissions (the role grants ROLES.LIST), and no further.
    const roles = await service.call('GET', '/idp/roles', { token: tokens.access_token });
    expect(roles.status).toBe(200);
    expect((await service.call('GET', '/idp/users', { token: tokens.access_token })).status).toBe(403);

    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token as string);
    expect((await service.call('GET', '/idp/roles', { token: refreshed.access_token })).status).toBe(200);

    await page.goto(
      oidc.buildEndSessionUrl(rp, {
        id_token_hint: tokens.id_token as string,
        post_logout_redirect_uri: afterLogout,
        state: 'goodbye',
      }).href,
    );
    await page.waitForURL(`${afterLogout}?state=goodbye`);
    await authorize({ prompt: 'none' });
    expect((await backAtApplication()).searchParams.get('error')).toBe('login_required');
  });

  it('asks for a code at the next sign-in, and a bare logout asks before signing out', async () => {
    const flow = await authorize();
    await submitPassword(person.email, PASSWORD);
    await expect.poll(heading).toBe('Two-step verification');
    await shot(page, 'totp-challenge');
    // The enrolment used its time step up; the next one is within the allowed drift.
    const step = Math.max(totpStep(Date.now()), person.enrolledStep + 1);
    await submitCode(hotp(base32Decode(person.secret), step));
    const tokens = await exchange(rp, { ...flow, location: await backAtApplication() });
    earlierRefreshToken = tokens.refresh_token as string;

    await signOut(true);
    await authorize({ prompt: 'none' });
    expect((await backAtApplication()).searchParams.get('error')).toBe('login_required');
  });

  it('resets a forgotten password by email, which ends earlier refresh tokens', async () => {
    await authorize();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await expect.poll(heading).toBe('Forgot your password?');
    await shot(page, 'forgot-password');
    await page.getByLabel('Email').fill(person.email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await expect.poll(heading).toBe('Check your email');
    await shot(page, 'reset-link-sent');

    await page.goto(await emailedLink(service, person.id, 'PASSWORD_RESET_EMAIL'));
    expect(await heading()).toBe('Choose a new password');
    await shot(page, 'reset-password');
    await choosePassword(NEW_PASSWORD, 'Change password');
    await expect(oidc.refreshTokenGrant(rp, earlierRefreshToken)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    const flow = await authorize();
    await submitPassword(person.email, PASSWORD);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('The email or password is not right.');
    await submitPassword(person.email, NEW_PASSWORD);
    await expect.poll(heading).toBe('Two-step verification');
    await submitCode(person.recoveryCodes[0] as string);
    expect((await exchange(rp, { ...flow, location: await backAtApplication() })).access_token).toBeTruthy();
    await signOut();
  });

  it('locks the account after 5 wrong passwords, answering the right one like a wrong one', async () => {
    await authorize();
    const wrongAnswer = async () => (await page.getByRole('alert').textContent()) ?? '';
    await submitPassword(person.email, 'not the password at all');
    await expect.poll(wrongAnswer).not.toBe('');
    const wrong = await wrongAnswer();
    for (let attempt = 2; attempt <= 5; attempt++)
      await submitPassword(person.email, `wrong password ${attempt}`);
    await submitPassword(person.email, NEW_PASSWORD);
    await expect.poll(() => page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect(await wrongAnswer()).toBe(wrong);
    expect(await heading()).toBe('Sign in');
    await shot(page, 'locked');
  });
});

describe('a person in Chromium, through an SSO provider (oidc-provider upstream)', () => {
  let upstream: Awaited<ReturnType<typeof startUpstreamProvider>>;
  let acme: ClientCaller;
  let acmeRp: oidc.Configuration;

  beforeAll(async () => {
    upstream = await startUpstreamProvider({
      clientId: 'acme-login',
      clientSecret: 'acme-login-secret',
      redirectUri: `${service.baseUrl}/signin/sso/callback/acme-login`,
    });
    acme = await service.freshOrganization({ name: 'Acme Federated' });
    const registered = await registerApplication(
      service,
      { flowType: 'authorization_code', redirectUris: [callback], postLogoutRedirectUris: [afterLogout] },
      acme,
    );
    acmeRp = await relyingParty(
      service,
      registered.body,
      oidc.ClientSecretBasic(registered.body.clientSecret),
    );
    await configureSsoProvider(
      {
        clientId: 'acme-login',
        organizationIds: [acme.orgId],
        clientSecret: 'acme-login-secret',
        issuer: upstream.issuer,
        displayName: 'Acme Login',
        emailDomains: ['acme.test'],
      },
      'test',
    );
  });
  afterAll(() => upstream?.close());

  // Each test signs in a new person at the upstream: no session there (or here) carries over.
  beforeEach(() => page.context().clearCookies());

  /** A person known to both the upstream and the organization. */
  const federatedPerson = async () => {
    const email = uniqueEmail('sam').replace('@example.com', '@acme.test');
    upstream.accounts.set(email, { email, email_verified: true, name: 'Sam Federated' });
    upstream.signInAs(email);
    return { email, id: await service.createUser({ email, name: 'Sam Federated', as: acme }) };
  };

  it('continues with the provider, accepts the agreement, and the application gets working tokens', async () => {
    const sam = await federatedPerson();
    const flow = await authorize({}, acmeRp);
    await shot(page, 'sso-sign-in');
    await page.getByRole('button', { name: 'Continue with Acme Login' }).click();
    await expect.poll(heading).toBe('Accept the agreement');
    await page.getByRole('button', { name: 'Accept' }).click();
    const tokens = await exchange(acmeRp, { ...flow, location: await backAtApplication() });
    expect(tokens.claims()).toMatchObject({ sub: sam.id, email: sam.email, amr: ['fed'] });
    expect((await service.call('GET', '/idp/me/ui-permissions', { token: tokens.access_token })).status).toBe(
      200,
    );
    await signOut();
  });

  it("sends an email of the provider's domain there, without a password", async () => {
    const sam = await federatedPerson();
    const flow = await authorize({}, acmeRp);
    await page.getByLabel('Email').fill(sam.email);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(heading).toBe('Accept the agreement');
    await page.getByRole('button', { name: 'Accept' }).click();
    expect((await exchange(acmeRp, { ...flow, location: await backAtApplication() })).claims()?.sub).toBe(
      sam.id,
    );
    await signOut();
  });

  it('shows a clear page for an email the organization does not know', async () => {
    const stranger = uniqueEmail('stranger').replace('@example.com', '@acme.test');
    upstream.accounts.set(stranger, { email: stranger, email_verified: true });
    upstream.signInAs(stranger);
    await authorize({}, acmeRp);
    await page.getByRole('button', { name: 'Continue with Acme Login' }).click();
    await expect.poll(heading).toBe('Something went wrong');
    expect(await page.getByRole('alert').textContent()).toBe(
      `${stranger} has no account in Acme Federated. Ask your administrator to invite you.`,
    );
    await shot(page, 'sso-no-account');
  });
});
