import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, hotp, totpStep } from '../../shared/domain/totp.js';
import { credentialKeyOf } from '../../shared/store/passkeys.js';
import {
  launchChromium,
  pageProblems,
  screenshotter,
  seriousAccessibilityViolations,
} from '../support/chromium.js';
import { personWithPassword } from '../support/hosted-pages.js';
import { type ClientCaller, useService } from '../support/service.js';
import {
  authorizationRequest,
  exchange,
  PASSWORD,
  registerApplication,
  relyingParty,
} from '../support/sign-in-flow.js';
import {
  addVirtualAuthenticator,
  base64url,
  type VirtualAuthenticator,
  withoutPasskeyAutofill,
} from '../support/virtual-authenticator.js';

/**
 * Passkeys on the hosted pages in Chromium, its virtual authenticator answering WebAuthn (issue
 * 29): the offer after a password, sign-in with the passkey alone (the button, and the email
 * field's autofill), the account page, an administrator removing it, a passkey instead of the
 * code where the organization asks for MFA, and "Not now"; and what the browser and the service
 * refuse: an answer posted again, no user verification, another RP ID, a removed passkey. The
 * steps build on each other, in order. The refusals' server side, one defence at a time, is
 * test/int/passkey-sign-in.int.test.ts. Screenshots (IDP_TEST_SCREENSHOTS=1) land in .tmp/screenshots/passkeys.
 *
 * Chromium's virtual authenticator answers an autofill request on its own (see
 * withoutPasskeyAutofill), so the page most steps use is a browser whose autofill offers no
 * passkeys, and the autofill step has a browser of its own.
 */

const service = useService();
const shot = screenshotter('passkeys');

const CANCELLED = 'The passkey request was cancelled or timed out. Try again, or continue another way.';
const UNKNOWN = 'This passkey is not registered here, or it was removed. Sign in another way.';
const CHALLENGE_GONE = 'This passkey request expired or was used already. Try again.';

let browser: Browser;
let page: Page;
let authenticator: VirtualAuthenticator;
let admin: ClientCaller;
let secureAdmin: ClientCaller;
let rp: oidc.Configuration;
let secureRp: oidc.Configuration;
let application: Server;
let callback: string;
let problems: string[];
/** The bodies of the passkey sign-ins the pages posted, in order. */
const passkeyPosts: string[] = [];
const robin = { id: '', email: '' };
type ListedPasskey = Record<string, unknown>;

/** Sees every post of a passkey sign-in, and each CSP violation and uncaught error. */
const watch = (watched: Page) => {
  const seen = pageProblems(watched);
  watched.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/signin/passkey')
      passkeyPosts.push(request.postData() ?? '');
  });
  return seen;
};

const registerWith = async (caller: ClientCaller) => {
  const registered = await registerApplication(
    service,
    { flowType: 'authorization_code', redirectUris: [callback] },
    caller,
  );
  expect(registered.status).toBe(201);
  return relyingParty(service, registered.body, oidc.ClientSecretBasic(registered.body.clientSecret));
};

beforeAll(async () => {
  [browser, admin, secureAdmin] = await Promise.all([
    launchChromium(),
    service.freshOrganization({ name: 'Acme Passkeys' }),
    service.freshOrganization({ name: 'Acme Secure', mfaEnabled: true }),
  ]);
  // The application's page the browser comes back to with the code.
  application = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<!doctype html><title>Application</title><h1>Back in the application</h1>');
  });
  await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', resolve));
  callback = `http://127.0.0.1:${(application.address() as AddressInfo).port}/callback`;
  let user: Awaited<ReturnType<typeof personWithPassword>>;
  [rp, secureRp, user] = await Promise.all([
    registerWith(admin),
    registerWith(secureAdmin),
    personWithPassword(admin.orgId),
  ]);
  Object.assign(robin, { id: user.id, email: user.email });
  page = await browser.newPage();
  await withoutPasskeyAutofill(page);
  problems = watch(page);
  authenticator = await addVirtualAuthenticator(page);
});

afterEach(() => {
  expect(problems).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  application?.close();
});

/** Opens the authorization endpoint as the application sends the person there. */
const authorize = async (extra: Record<string, string> = {}, application = rp, on = page) => {
  const { url, ...request } = await authorizationRequest(application, callback, extra);
  await on.goto(url.href);
  return request;
};

const backAtApplication = async (on = page) => {
  await on.waitForURL(`${callback}?**`);
  return new URL(on.url());
};

const heading = () => page.getByRole('heading', { level: 1 }).textContent();
const alertText = () => page.getByRole('alert').textContent();
/** What the page's script says when the browser's ceremony ends without an answer. */
const browserMessage = () => page.locator('[data-passkey-message]:visible').textContent();
const passkeyButton = (name = 'Sign in with a passkey') => page.getByRole('button', { name });

const submitPassword = async (email: string, password = PASSWORD) => {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
};

const submitCode = async (code: string) => {
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
};

/** A new sign-in with the button, its ID token's claims once back at the application. */
const signInWithPasskey = async () => {
  const flow = await authorize({ prompt: 'login' });
  await passkeyButton().click();
  return (await exchange(rp, { ...flow, location: await backAtApplication() })).claims();
};

describe('a person with a passkey, in Chromium', () => {
  it('adds a passkey on the offer after a password sign-in, then signs in with it alone (amr hwk, user, mfa)', async () => {
    const flow = await authorize();
    // The script found WebAuthn: it shows the button and tells the password form.
    await passkeyButton().waitFor();
    expect(await page.locator('input[name="passkeys"]').inputValue()).toBe('available');
    expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('username webauthn');
    await shot(page, 'sign-in');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await submitPassword(robin.email);

    await expect.poll(heading).toBe('Sign in faster with a passkey');
    await shot(page, 'offer');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const tokens = await exchange(rp, { ...flow, location: await backAtApplication() });
    expect(tokens.claims()).toMatchObject({ sub: robin.id, amr: ['pwd'] });
    const [made, ...others] = await authenticator.credentials();
    expect(others).toEqual([]);
    // A discoverable credential of the service's RP ID, its user handle the person's id (not the email).
    expect(made).toMatchObject({ rpId: 'localhost', isResidentCredential: true, backupEligibility: false });
    expect(Buffer.from(made?.userHandle ?? '', 'base64').toString()).toBe(robin.id);

    const posted = passkeyPosts.length;
    expect(await signInWithPasskey()).toMatchObject({ sub: robin.id, amr: ['hwk', 'user', 'mfa'] });
    expect(passkeyPosts.length).toBe(posted + 1);
  });

  it('lists and renames the passkey on the account page; the browser refuses to add the same one twice', async () => {
    await page.goto(`${service.baseUrl}/signin/account`);
    expect(await heading()).toBe('Your passkeys');
    const entries = page.locator('ul.passkeys > li');
    expect(await entries.count()).toBe(1);
    expect(await entries.textContent()).toMatch(/Passkey added \d{4}-\d\d-\d\d/);
    expect(await entries.textContent()).toContain('on one device only');
    await passkeyButton('Add a passkey').waitFor();
    await shot(page, 'account');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await page.getByLabel('Name').fill('Work laptop');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('The passkey is renamed.');
    expect(await page.getByLabel('Name').inputValue()).toBe('Work laptop');

    // The options exclude the person's passkeys: the authenticator that holds one makes no second.
    await passkeyButton('Add a passkey').click();
    await expect.poll(browserMessage).toBe('This passkey is added already.');
    expect(await authenticator.credentials()).toHaveLength(1);
    expect(await page.locator('ul.passkeys > li').count()).toBe(1);
  });

  it('accepts an answer once: the same post again, on its own sign-in or a new one, is refused', async () => {
    const posted = passkeyPosts.length;
    expect((await signInWithPasskey())?.sub).toBe(robin.id);
    const answer = new URLSearchParams(passkeyPosts[posted]);
    const replay = (form: URLSearchParams) =>
      page.request.post(`${service.baseUrl}/signin/passkey`, {
        form: Object.fromEntries(form),
        maxRedirects: 0,
      });

    // Its sign-in is over (it gave its code).
    const again = await replay(answer);
    expect(again.status()).toBe(400);
    expect(again.headers().location).toBeUndefined();

    // A new sign-in of this browser: the answer's challenge was that of the earlier one, and is used.
    await authorize({ prompt: 'login' });
    const request = await page.locator('form[data-passkey="sign-in"] input[name="request"]').inputValue();
    answer.set('request', request);
    const onNewRequest = await replay(answer);
    expect(onNewRequest.status()).toBe(401);
    expect(onNewRequest.headers().location).toBeUndefined();
    expect(await onNewRequest.text()).toContain(CHALLENGE_GONE);
  });

  it('makes no answer without user verification: the page says so and posts nothing', async () => {
    const flow = await authorize({ prompt: 'login' });
    const posted = passkeyPosts.length;
    // The person fails the fingerprint or PIN check.
    await authenticator.setUserVerified(false);
    await passkeyButton().click();
    await expect.poll(browserMessage).toBe(CANCELLED);
    await shot(page, 'no-user-verification');
    expect(passkeyPosts.length).toBe(posted);
    expect(new URL(page.url()).pathname).toBe('/oauth2/authorize');

    // The same page, the person verified this time: signed in.
    await authenticator.setUserVerified(true);
    await passkeyButton().click();
    expect((await exchange(rp, { ...flow, location: await backAtApplication() })).claims()?.sub).toBe(
      robin.id,
    );
  });

  it("never answers for another RP ID: the passkey under 'evil.localhost' is not offered here, and a page here cannot ask for one", async () => {
    const [real] = await authenticator.credentials();
    if (!real) throw new Error('The authenticator holds no passkey');
    // The same passkey (id, key, user, counter), only its RP ID changed.
    await authenticator.remove(real.credentialId);
    await authenticator.add({ ...real, rpId: 'evil.localhost' });
    const flow = await authorize({ prompt: 'login' });
    const posted = passkeyPosts.length;
    await passkeyButton().click();
    await expect.poll(browserMessage).toBe(CANCELLED);
    expect(passkeyPosts.length).toBe(posted);

    await authenticator.remove(real.credentialId);
    await authenticator.add(real);
    await passkeyButton().click();
    expect((await exchange(rp, { ...flow, location: await backAtApplication() })).claims()?.sub).toBe(
      robin.id,
    );

    // The service's origin asks the browser for an assertion of another RP ID: refused before any authenticator.
    await page.goto(`${service.baseUrl}/signin/account`);
    const refusal = await page.evaluate(async () => {
      const { navigator } = globalThis as unknown as {
        navigator: { credentials: { get(options: unknown): Promise<unknown> } };
      };
      try {
        await navigator.credentials.get({
          publicKey: { challenge: new Uint8Array(32), rpId: 'evil.localhost', userVerification: 'required' },
        });
        return 'answered';
      } catch (error) {
        return (error as Error).name;
      }
    });
    expect(refusal).toBe('SecurityError');
  });

  // The step before signed in with this passkey: the positive control.
  it('an administrator lists the passkey and removes it; then it signs nobody in', async () => {
    const [held] = await authenticator.credentials();
    const id = credentialKeyOf(base64url(held?.credentialId ?? ''));
    const listed = await service.call<ListedPasskey[]>('GET', `/idp/users/${robin.id}/passkeys`, {
      token: admin.token,
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id,
        name: 'Work laptop',
        backupEligible: false,
        flagged: false,
        lastUsedAt: expect.any(Number),
      }),
    ]);
    const removed = await service.call('DELETE', `/idp/users/${robin.id}/passkeys/${id}`, {
      token: admin.token,
    });
    expect(removed.status).toBe(204);

    await authorize({ prompt: 'login' });
    const posted = passkeyPosts.length;
    await passkeyButton().click();
    await expect.poll(alertText).toBe(UNKNOWN);
    // The browser answered; the service refused it, and gave no code.
    expect(passkeyPosts.length).toBe(posted + 1);
    expect(page.url()).toBe(`${service.baseUrl}/signin/passkey`);
    await shot(page, 'passkey-removed');
  });
});

describe('a passkey instead of the code, where the organization asks for MFA', () => {
  const sam = { id: '', email: '' };

  it('enrols TOTP and a passkey, then signs in with the password and the passkey (amr pwd, hwk, user, mfa)', async () => {
    // Robin's passkey (removed at the service) goes: the autofill step below copies this
    // authenticator's passkeys and must find Sam's alone.
    await authenticator.clear();
    const user = await personWithPassword(secureAdmin.orgId);
    Object.assign(sam, { id: user.id, email: user.email });

    const first = await authorize({}, secureRp);
    await submitPassword(sam.email);
    await expect.poll(heading).toBe('Set up two-step verification');
    const secret = (await page.locator('code').first().textContent()) ?? '';
    await submitCode(hotp(base32Decode(secret), totpStep(Date.now())));
    await expect.poll(heading).toBe('Save your recovery codes');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(heading).toBe('Sign in faster with a passkey');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    expect(
      (await exchange(secureRp, { ...first, location: await backAtApplication() })).claims()?.amr,
    ).toEqual(['pwd', 'otp', 'mfa']);

    const flow = await authorize({ prompt: 'login' }, secureRp);
    await submitPassword(sam.email);
    await expect.poll(heading).toBe('Two-step verification');
    await passkeyButton('Use a passkey instead').waitFor();
    await shot(page, 'code-or-passkey');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await passkeyButton('Use a passkey instead').click();
    const tokens = await exchange(secureRp, { ...flow, location: await backAtApplication() });
    expect(tokens.claims()).toMatchObject({ sub: sam.id, amr: ['pwd', 'hwk', 'user', 'mfa'] });
  });

  it('makes new recovery codes on the account page, after that sign-in with a second factor', async () => {
    await page.goto(`${service.baseUrl}/signin/account`);
    await expect.poll(() => page.locator('main').textContent()).toContain('You have 10 recovery codes left.');
    await page.getByRole('button', { name: 'Make new recovery codes' }).click();
    await expect.poll(heading).toBe('Your new recovery codes');
    expect(await page.locator('ul.codes li').allTextContents()).toHaveLength(10);
    await shot(page, 'new-recovery-codes');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Back to your account' }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('You have 10 recovery codes left.');
  });

  it("signs in from the email field's autofill (conditional mediation), in a browser whose autofill offers passkeys", async () => {
    // A second browser with its own virtual authenticator, holding a copy of Sam's passkey. Its
    // authenticator picks the passkey for the autofill request as soon as the page makes it, where
    // a person would pick it among the email field's suggestions: nothing is typed or pressed.
    const context = await browser.newContext();
    const other = await context.newPage();
    const seen = watch(other);
    const copy = await addVirtualAuthenticator(other);
    for (const credential of await authenticator.credentials()) await copy.add(credential);
    const posted = passkeyPosts.length;
    const flow = await authorize({ prompt: 'login' }, secureRp, other);
    const tokens = await exchange(secureRp, { ...flow, location: await backAtApplication(other) });
    expect(tokens.claims()).toMatchObject({ sub: sam.id, amr: ['hwk', 'user', 'mfa'] });
    expect(passkeyPosts.length).toBe(posted + 1);
    await context.close();
    expect(seen).toEqual([]);
  });
});

describe('a synced passkey', () => {
  it('signs in with amr swk, user, mfa', async () => {
    // An authenticator whose passkeys are backup eligible, as a password manager's or a phone's synced ones are.
    await authenticator.detach();
    authenticator = await addVirtualAuthenticator(page, { backupEligible: true });
    const user = await personWithPassword(admin.orgId);
    const flow = await authorize({ prompt: 'login' });
    await submitPassword(user.email);
    await expect.poll(heading).toBe('Sign in faster with a passkey');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    expect((await exchange(rp, { ...flow, location: await backAtApplication() })).claims()?.sub).toBe(
      user.id,
    );
    expect(await signInWithPasskey()).toMatchObject({ sub: user.id, amr: ['swk', 'user', 'mfa'] });
  });
});

describe('"Not now" on the offer', () => {
  it('continues to the application, and this browser is not asked again', async () => {
    const user = await personWithPassword(admin.orgId);
    const flow = await authorize({ prompt: 'login' });
    await submitPassword(user.email);
    await expect.poll(heading).toBe('Sign in faster with a passkey');
    await page.getByRole('button', { name: 'Not now' }).click();
    expect((await exchange(rp, { ...flow, location: await backAtApplication() })).claims()).toMatchObject({
      sub: user.id,
      amr: ['pwd'],
    });

    const next = await authorize({ prompt: 'login' });
    await submitPassword(user.email);
    expect((await exchange(rp, { ...next, location: await backAtApplication() })).claims()?.sub).toBe(
      user.id,
    );
  });
});
