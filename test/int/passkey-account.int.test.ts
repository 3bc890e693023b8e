import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { logger } from '../../shared/http/logger.js';
import {
  addFromAccount,
  removeFromAccount,
  renameFromAccount,
  showAccount,
} from '../../shared/passkeys/account.js';
import { skipPasskeyPrompt, submitPromptPasskey } from '../../shared/passkeys/enrolment.js';
import { passkeyOptions } from '../../shared/passkeys/options.js';
import { submitPasskeySignIn } from '../../shared/passkeys/passkey-sign-in.js';
import { MAX_PASSKEYS_PER_USER } from '../../shared/passkeys/rules.js';
import { listPasskeys } from '../../shared/store/passkeys.js';
import { createUserFromDirectory, deprovisionUser } from '../../shared/store/scim-users.js';
import type { UserRecord } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { hiddenField } from '../support/browser-session.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  PASSWORD,
  type Page,
  PagesBrowser,
  personWithPassword,
  providerServing,
  requestIdOf,
  signInSetup,
  textOf,
  uniqueDomain,
} from '../support/hosted-pages.js';
import { beforeTransaction } from '../support/interleave.js';
import { BROKEN_JSON, EXOTIC_STRINGS, LONG_STRINGS, PROTOTYPE_NAMES } from '../support/nasty-inputs.js';
import { LOCAL_RP, storedPasskey } from '../support/passkeys.js';
import { measureRoundTrips, roundTrips } from '../support/round-trips.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

/**
 * The account page (shared/passkeys/account.ts): the browser session's person lists, adds,
 * renames and removes their passkeys; each form carries the session's CSRF token; adding needs a
 * recent sign-in. Handlers in process against DynamoDB Local, a software authenticator answering.
 */

useDatabase();

const RP = LOCAL_RP;

let setup: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  setup = await signInSetup();
});

afterEach(() => {
  vi.useRealTimers();
});

/** A person signed in with their password in a browser of their own (it holds their session). */
const signedIn = async (where = setup, email?: string) => {
  const user = await personWithPassword(where.organization.id, PASSWORD, email);
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(where.application.id)));
  const done = await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  expect(done.statusCode).toBe(303);
  return { user, browser };
};

const stored = async (user: UserRecord, name: string) => (await storedPasskey(user, undefined, name)).passkey;

const csrfOf = (page: Page) => hiddenField(textOf(page), 'csrf') ?? '';

/** Adds a passkey through the page: options with the page's token, the authenticator, the form. */
const addThroughPage = async (browser: PagesBrowser, authenticator = new SoftAuthenticator(RP)) => {
  const csrf = csrfOf(await browser.get(showAccount, {}));
  const answer = await browser.post(passkeyOptions, { purpose: 'account', csrf });
  if (answer.statusCode !== 200) return answer;
  const credential = JSON.stringify(authenticator.register(JSON.parse(textOf(answer))));
  return browser.post(addFromAccount, { csrf, credential });
};

it('answers a page saying so to a browser without a session', async () => {
  const page = await new PagesBrowser().get(showAccount, {});
  expect(page.statusCode).toBe(401);
  expect(alertOf(page)).toBe('Sign in through your application first, then open this page again.');
});

describe('a signed-in person', () => {
  it("sees their passkeys (never another person's) and adds one after a recent sign-in", async () => {
    const [{ user, browser }, other] = await Promise.all([signedIn(), signedIn()]);
    await Promise.all([stored(user, 'Work laptop'), stored(other.user, 'Their key')]);
    const { result: page, recorded } = await measureRoundTrips('account page', () =>
      browser.get(showAccount, {}),
    );
    expect(page.statusCode).toBe(200);
    // The session, then the person, the organization, its SSO providers and the passkeys side by side.
    expect(roundTrips(recorded)).toBe(2);
    expect(textOf(page)).toContain('Work laptop');
    expect(textOf(page)).not.toContain('Their key');
    expect(page.headers?.['content-security-policy']).toContain("script-src 'self'");

    const added = await addThroughPage(browser);
    expect(added.headers?.location).toBe('/signin/account?done=added');
    expect(await listPasskeys(setup.organization.id, user.id)).toHaveLength(2);
    // Only the one added through the page has the person as its actor (the other was stored directly).
    const records = await auditTrail(setup.organization.id, {
      action: 'passkey.registered',
      actorId: user.id,
    });
    expect(records).toHaveLength(1);
  });

  it('may not add a passkey with a sign-in older than 15 minutes', async () => {
    const { user, browser } = await signedIn();
    const recent = await addThroughPage(browser);
    expect(recent.statusCode).toBe(303);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    const refused = await addThroughPage(browser);
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(textOf(refused)).message).toContain('sign in again');
    expect(textOf(await browser.get(showAccount, {}))).not.toContain('data-passkey="account"');
    expect(await listPasskeys(setup.organization.id, user.id)).toHaveLength(1);
  });

  it('may not remove a passkey with a sign-in older than 15 minutes either', async () => {
    const { user, browser } = await signedIn();
    const [first, second] = [await stored(user, 'First'), await stored(user, 'Second')];
    const csrf = csrfOf(await browser.get(showAccount, {}));
    // Positive control: a recent sign-in removes one.
    expect((await browser.post(removeFromAccount, { csrf, passkey: first.credentialKey })).statusCode).toBe(
      303,
    );
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    const refused = await browser.post(removeFromAccount, { csrf, passkey: second.credentialKey });
    expect(refused.statusCode).toBe(403);
    expect(alertOf(refused)).toContain('To remove a passkey, sign in again');
    expect((await listPasskeys(setup.organization.id, user.id)).map((passkey) => passkey.name)).toEqual([
      'Second',
    ]);
  });

  it('may not add a passkey where an SSO provider serves their email domain: it would go around the provider', async () => {
    const routed = await signInSetup();
    const domain = uniqueDomain();
    const { user, browser } = await signedIn(routed, `person@${domain}`);
    // The positive control: before the provider serves the domain, the page hands out a challenge.
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const options = await browser.post(passkeyOptions, { purpose: 'account', csrf });
    expect(options.statusCode).toBe(200);
    await providerServing(routed.organization.id, domain);
    const credential = JSON.stringify(new SoftAuthenticator(RP).register(JSON.parse(textOf(options))));
    const refused = await browser.post(addFromAccount, { csrf, credential });
    expect(refused.statusCode).toBe(403);
    expect(alertOf(refused)).toBe(
      'Your organization signs you in through Workforce, so your account does not use passkeys.',
    );
    expect((await browser.post(passkeyOptions, { purpose: 'account', csrf })).statusCode).toBe(403);
    expect(textOf(await browser.get(showAccount, {}))).not.toContain('data-passkey="account"');
    expect(await listPasskeys(routed.organization.id, user.id)).toEqual([]);
  });

  it('keeps no passkey added while a directory deletes the person: the leaver cannot sign in again', async () => {
    const { user, browser } = await signedIn();
    const device = new SoftAuthenticator(RP);
    // Positive control: the same page adds a passkey for the person before the DELETE.
    expect((await addThroughPage(browser)).statusCode).toBe(303);
    // The SCIM DELETE commits after the page checked the person, just before its passkey's write.
    const deletion = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('ADD passkeyCount')),
      () => deprovisionUser(setup.organization.id, user.id),
    );
    let added: Page;
    try {
      added = await addThroughPage(browser, device);
    } finally {
      deletion.stop();
    }
    expect(deletion.ran).toBe(true);
    expect(added.statusCode).toBe(400);
    // Provisioned again (the same user, the address perhaps someone else's): no passkey of the leaver.
    const revived = await createUserFromDirectory(
      setup.organization.id,
      { email: user.email, name: 'Someone New', active: true },
      'dir',
      3600,
    );
    expect(revived.user.id).toBe(user.id);
    expect(await listPasskeys(setup.organization.id, user.id)).toEqual([]);
  });

  it(`holds at most ${MAX_PASSKEYS_PER_USER} passkeys`, async () => {
    const { user, browser } = await signedIn();
    for (let index = 1; index < MAX_PASSKEYS_PER_USER; index += 1) await stored(user, `Key ${index}`);
    expect((await addThroughPage(browser)).statusCode).toBe(303);
    const refused = await addThroughPage(browser);
    expect(refused.statusCode).toBe(409);
    expect(await listPasskeys(setup.organization.id, user.id)).toHaveLength(MAX_PASSKEYS_PER_USER);
  });

  it('renames and removes their own passkeys, each recorded', async () => {
    const { user, browser } = await signedIn();
    const passkey = await stored(user, 'Old name');
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const renamed = await browser.post(renameFromAccount, {
      csrf,
      passkey: passkey.credentialKey,
      name: 'Phone',
    });
    expect(renamed.headers?.location).toBe('/signin/account?done=renamed');
    expect(textOf(await browser.get(showAccount, { done: 'renamed' }))).toContain('The passkey is renamed.');
    const [record] = await auditTrail(setup.organization.id, { action: 'passkey.renamed', actorId: user.id });
    expect(record?.changes).toEqual({ name: { from: 'Old name', to: 'Phone' } });
    const tooLong = await browser.post(renameFromAccount, {
      csrf,
      passkey: passkey.credentialKey,
      name: 'x'.repeat(65),
    });
    expect(tooLong.statusCode).toBe(400);

    const queued = vi.spyOn(logger, 'info');
    const noticesOf = () =>
      queued.mock.calls.filter(([message]) => message === 'email queued').map(([, fields]) => fields);
    expect(noticesOf()).toEqual([]);
    const removed = await browser.post(removeFromAccount, { csrf, passkey: passkey.credentialKey });
    expect(removed.headers?.location).toBe('/signin/account?done=removed');
    expect(await listPasskeys(setup.organization.id, user.id)).toEqual([]);
    // The person is told (a stolen session could strip the owner's passkeys).
    expect(noticesOf()).toEqual([
      expect.objectContaining({ type: 'SECURITY_NOTICE_EMAIL', userId: user.id }),
    ]);
    expect(
      await auditTrail(setup.organization.id, { action: 'passkey.removed', actorId: user.id }),
    ).toHaveLength(1);
  });

  it("refuses a form without the session's token, and another person's passkey, changing nothing", async () => {
    const [{ user, browser }, other] = await Promise.all([signedIn(), signedIn()]);
    const [mine, theirs] = await Promise.all([stored(user, 'Mine'), stored(other.user, 'Theirs')]);
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const otherCsrf = csrfOf(await other.browser.get(showAccount, {}));
    for (const token of ['', otherCsrf]) {
      const forged = await browser.post(removeFromAccount, { csrf: token, passkey: mine.credentialKey });
      expect(forged.statusCode).toBe(403);
    }
    const foreign = await browser.post(removeFromAccount, { csrf, passkey: theirs.credentialKey });
    expect(foreign.statusCode).toBe(404);
    expect(await listPasskeys(setup.organization.id, other.user.id)).toHaveLength(1);
    for (const passkey of ['', 'x'.repeat(2000), '../x'])
      expect((await browser.post(removeFromAccount, { csrf, passkey })).statusCode).toBe(404);
    // The positive control: the same form with the token, on their own passkey.
    expect((await browser.post(removeFromAccount, { csrf, passkey: mine.credentialKey })).statusCode).toBe(
      303,
    );
  });
});

describe('malformed forms', () => {
  it('get a clear 4xx page (or JSON from the options endpoint) on every passkey route, never a 500', async () => {
    const { browser } = await signedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const request = requestIdOf(
      await browser.get(authorize, authorizationQuery(setup.application.id, { prompt: 'login' })),
    );
    // One or two of each kind: every value goes to 7 handlers in 4 forms.
    const values = [
      ...LONG_STRINGS,
      ...EXOTIC_STRINGS.slice(0, 4),
      ...BROKEN_JSON.slice(0, 2),
      PROTOTYPE_NAMES[0] as string,
    ];
    const handlers = [
      passkeyOptions,
      submitPasskeySignIn,
      submitPromptPasskey,
      skipPasskeyPrompt,
      addFromAccount,
      renameFromAccount,
      removeFromAccount,
    ];
    for (const handler of handlers)
      for (const value of values)
        for (const form of <Record<string, string>[]>[
          { purpose: value, request, csrf },
          { purpose: 'sign-in', request: value, credential: value },
          { purpose: 'account', csrf, credential: value, passkey: value, name: value },
          {
            request,
            credential: JSON.stringify({
              id: value,
              rawId: value,
              type: 'public-key',
              response: { clientDataJSON: value },
            }),
          },
        ]) {
          const page = await browser.post(handler, form);
          expect(page.statusCode, `${handler.name} ${JSON.stringify(form).slice(0, 80)}`).toBeLessThan(500);
        }
    // A request id longer than a key holds named no request, but was read (a 500) on every sign-in form.
    const tooLong = await browser.post(submitSignIn, {
      request: 'x'.repeat(3000),
      email: 'a@example.com',
      password: PASSWORD,
    });
    expect(tooLong.statusCode).toBe(400);
  });
});
