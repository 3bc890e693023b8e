import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { logger } from '../../shared/http/logger.js';
import { skipPasskeyPrompt, submitPromptPasskey } from '../../shared/passkeys/enrolment.js';
import { passkeyOptions } from '../../shared/passkeys/options.js';
import { submitPasskeySignIn } from '../../shared/passkeys/passkey-sign-in.js';
import { keys } from '../../shared/store/keys.js';
import { credentialKeyOf, listPasskeys, removePasskey } from '../../shared/store/passkeys.js';
import { redeemAuthorizationCode } from '../../shared/store/sign-in-state.js';
import { getUser, setUserStatus, type UserRecord } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
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
  providerServing,
  REDIRECT,
  requestIdOf,
  signInSetup,
  textOf,
  totpCodeAt,
  uniqueDomain,
} from '../support/hosted-pages.js';
import { LOCAL_RP, storedPasskey } from '../support/passkeys.js';
import { getItem } from '../support/records.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

/**
 * Passkeys on the hosted pages, handlers called in process against DynamoDB Local, a software
 * authenticator answering (shared/passkeys): the offer after a password, sign-in with a passkey
 * (first and second factor), and each refusal, starting from an assertion that is accepted and
 * changing only what the defence checks. The Chromium test (test/browser/passkeys.browser.test.ts)
 * drives the same pages through a real browser's WebAuthn.
 */

useDatabase();

const RP = LOCAL_RP;
const NOT_ACCEPTED = 'The passkey could not be verified. Try again, or sign in another way.';

let plain: Awaited<ReturnType<typeof signInSetup>>;
let mfa: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  [plain, mfa] = await Promise.all([signInSetup(), signInSetup({ mfaEnabled: true })]);
});

afterEach(() => {
  vi.useRealTimers();
});

type Setup = typeof plain;

const json = (page: Page) => JSON.parse(textOf(page));

/** A person's passkey (the offer that enrols one is tested below). */
const givePasskey = async (user: UserRecord, authenticator?: SoftAuthenticator) =>
  (await storedPasskey(user, authenticator)).authenticator;

const grantOf = async (setup: Setup, page: Page) => {
  const redemption = await redeemAuthorizationCode(
    locationOf(page).searchParams.get('code') ?? '',
    { clientId: setup.application.id, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
    'family',
  );
  if (redemption.outcome !== 'redeemed') throw new Error(`The code was ${redemption.outcome}`);
  return redemption.grant;
};

/** Opens the sign-in page, asks for options and answers them: the answer and what it posted. */
const passkeySignIn = async (
  setup: Setup,
  authenticator: SoftAuthenticator,
  changes: Parameters<SoftAuthenticator['assert']>[1] = {},
  browser = new PagesBrowser(),
) => {
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(setup.application.id)));
  const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
  const credential = JSON.stringify(authenticator.assert(options, changes));
  const page = await browser.post(submitPasskeySignIn, { request, credential });
  return { page, request, credential, browser };
};

/** The reasons of the refused sign-ins recorded in the organization since `since`, oldest first. */
const refusalsSince = async (setup: Setup, since: number) =>
  (await auditTrail(setup.organization.id, { action: 'signin.', since }))
    .filter((record) => record.outcome === 'failure')
    .map((record) => record.reason);

describe('the offer after a password', () => {
  const afterPassword = async (browser: PagesBrowser, user: UserRecord, capable: boolean) => {
    const request = requestIdOf(
      await browser.get(authorize, authorizationQuery(plain.application.id, { prompt: 'login' })),
    );
    const page = await browser.post(submitSignIn, {
      request,
      email: user.email,
      password: PASSWORD,
      ...(capable ? { passkeys: 'available' } : {}),
    });
    return { request, page };
  };

  it('is made only where the page found WebAuthn; the passkey made there signs in with amr hwk', async () => {
    const user = await personWithPassword(plain.organization.id);
    const withoutScript = await afterPassword(new PagesBrowser(), user, false);
    expect(withoutScript.page.statusCode).toBe(303);
    expect((await grantOf(plain, withoutScript.page)).amr).toEqual(['pwd']);

    const browser = new PagesBrowser();
    const { request, page } = await afterPassword(browser, user, true);
    expect(page.statusCode).toBe(200);
    expect(textOf(page)).toContain('data-passkey="enrol"');
    expect(page.headers?.['content-security-policy']).toContain("script-src 'self'");
    const authenticator = new SoftAuthenticator(RP);
    const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request }));
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    });
    expect(options.attestation).toBe('none');
    expect(options.rp.id).toBe('localhost');
    const info = vi.spyOn(logger, 'info');
    const added = await browser.post(submitPromptPasskey, {
      request,
      credential: JSON.stringify(authenticator.register(options)),
    });
    expect((await grantOf(plain, added)).amr).toEqual(['pwd']);
    // The person is told a passkey was added (OWASP ASVS 2.5.5).
    expect(
      info.mock.calls.filter(([message]) => message === 'email queued').map(([, fields]) => fields),
    ).toEqual([expect.objectContaining({ type: 'SECURITY_NOTICE_EMAIL', userId: user.id })]);
    info.mockRestore();
    const [passkey] = await listPasskeys(plain.organization.id, user.id);
    expect(passkey).toMatchObject({
      backupEligible: false,
      signCount: 0,
      aaguid: '00000000-0000-0000-0000-000000000000',
    });
    const registered = await auditTrail(plain.organization.id, {
      action: 'passkey.registered',
      actorId: user.id,
    });
    expect(registered).toHaveLength(1);

    const { page: signedIn } = await passkeySignIn(plain, authenticator);
    expect((await grantOf(plain, signedIn)).amr).toEqual(['hwk', 'user', 'mfa']);
    const successes = await auditTrail(plain.organization.id, {
      action: 'signin.succeeded',
      actorId: user.id,
    });
    expect(successes.map((record) => record.signIn?.amr)).toEqual([['pwd'], ['pwd'], ['hwk', 'user', 'mfa']]);
  });

  it('takes no passkey once the password is more than 15 minutes old, as the account page', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const [early, late] = await Promise.all([
      personWithPassword(plain.organization.id),
      personWithPassword(plain.organization.id),
    ]);
    const offer = async (user: UserRecord) => {
      const browser = new PagesBrowser();
      const { request } = await afterPassword(browser, user, true);
      return { browser, request };
    };
    const add = async ({ browser, request }: Awaited<ReturnType<typeof offer>>) => {
      const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request }));
      const credential = JSON.stringify(new SoftAuthenticator(RP).register(options));
      return browser.post(submitPromptPasskey, { request, credential });
    };
    // Positive control: 14 minutes after the password, the offer still takes one.
    const recent = await offer(early);
    vi.advanceTimersByTime(14 * 60_000);
    expect((await add(recent)).statusCode).toBe(303);
    const stale = await offer(late);
    vi.advanceTimersByTime(16 * 60_000);
    const refused = await add(stale);
    expect(refused.statusCode).toBe(403);
    expect(alertOf(refused)).toContain('more than 15 minutes old');
    expect(await listPasskeys(plain.organization.id, late.id)).toEqual([]);
  });

  it("takes no passkey once an SSO provider serves the person's domain, the offer open or not", async () => {
    const routed = await signInSetup();
    const domain = uniqueDomain();
    const [before, after] = await Promise.all([
      personWithPassword(routed.organization.id, PASSWORD, `before@${domain}`),
      personWithPassword(routed.organization.id, PASSWORD, `after@${domain}`),
    ]);
    const offer = async (user: UserRecord) => {
      const browser = new PagesBrowser();
      const request = requestIdOf(
        await browser.get(authorize, authorizationQuery(routed.application.id, { prompt: 'login' })),
      );
      await browser.post(submitSignIn, {
        request,
        email: user.email,
        password: PASSWORD,
        passkeys: 'available',
      });
      const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request }));
      const credential = JSON.stringify(new SoftAuthenticator(RP).register(options));
      return () => browser.post(submitPromptPasskey, { request, credential });
    };
    const [early, late] = await Promise.all([offer(before), offer(after)]);
    // The positive control: the offer takes a passkey while no provider serves the domain.
    expect((await early()).statusCode).toBe(303);
    await providerServing(routed.organization.id, domain);
    const refused = await late();
    expect(refused.statusCode).toBe(400);
    expect(alertOf(refused)).toBe(
      'Your organization signs you in through Workforce, so your account does not use passkeys.',
    );
    expect(await listPasskeys(routed.organization.id, after.id)).toEqual([]);
  });

  it('"Not now" continues, and this browser is not asked again', async () => {
    const user = await personWithPassword(plain.organization.id);
    const browser = new PagesBrowser();
    const { request } = await afterPassword(browser, user, true);
    const skipped = await browser.post(skipPasskeyPrompt, { request });
    expect((await grantOf(plain, skipped)).amr).toEqual(['pwd']);
    expect(browser.cookies.get('idp-passkey-prompt')).toBe('declined');
    expect((await afterPassword(browser, user, true)).page.statusCode).toBe(303);
    expect((await afterPassword(new PagesBrowser(), user, true)).page.statusCode).toBe(200);
  });

  it('refuses a passkey made for a challenge of another sign-in, and keeps the offer open', async () => {
    const user = await personWithPassword(plain.organization.id);
    const browser = new PagesBrowser();
    const mine = await afterPassword(browser, user, true);
    const other = await afterPassword(browser, user, true);
    const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request: other.request }));
    const credential = JSON.stringify(new SoftAuthenticator(RP).register(options));
    const refused = await browser.post(submitPromptPasskey, { request: mine.request, credential });
    expect(refused.statusCode).toBe(400);
    expect(alertOf(refused)).toBe('This passkey request expired or was used already. Try again.');
    expect(await listPasskeys(plain.organization.id, user.id)).toEqual([]);
    // The positive control: the same answer on the sign-in it was made for.
    expect((await browser.post(submitPromptPasskey, { request: other.request, credential })).statusCode).toBe(
      303,
    );
  });
});

describe('signing in with a passkey: refusals', () => {
  let user: UserRecord;
  let authenticator: SoftAuthenticator;
  beforeAll(async () => {
    user = await personWithPassword(plain.organization.id);
    authenticator = await givePasskey(user);
  });

  /** The positive control of each refusal: the same sign-in, unchanged, is accepted. */
  const accepted = async () => {
    const { page } = await passkeySignIn(plain, authenticator);
    expect(page.statusCode).toBe(303);
    expect(locationOf(page).searchParams.get('code')).toBeTruthy();
  };

  it.each([
    ['an assertion for another RP ID', { rpId: 'evil.localhost' }, 'wrong RP ID'],
    ['an assertion from another origin', { origin: 'http://evil.localhost' }, 'wrong origin'],
    ['an assertion without user verification', { userVerified: false }, 'user verification missing'],
    ['a first factor without a user handle', { omitUserHandle: true }, 'user handle missing'],
    [
      'an assertion whose user handle names another person',
      { userHandle: Buffer.from('someone-else').toString('base64url') },
      'user handle of another person',
    ],
    [
      'an assertion from a device-bound passkey saying it is synced',
      { backupEligible: true },
      'backup eligibility changed',
    ],
  ])('refuses %s', async (_, changes, reason) => {
    await accepted();
    const since = Date.now();
    const { page } = await passkeySignIn(plain, authenticator, changes);
    expect(page.statusCode).toBe(401);
    expect(alertOf(page)).toBe(NOT_ACCEPTED);
    expect(await refusalsSince(plain, since)).toEqual([reason]);
  });

  it("refuses an assertion signed by another passkey's key", async () => {
    const device = new SoftAuthenticator(RP);
    const [first, second] = await Promise.all([
      personWithPassword(plain.organization.id),
      personWithPassword(plain.organization.id),
    ]);
    await givePasskey(first, device);
    await givePasskey(second, device);
    const [mine, theirs] = device.credentials.map((credential) => credential.id) as [string, string];
    expect((await passkeySignIn(plain, device, { credentialId: mine })).page.statusCode).toBe(303);
    const since = Date.now();
    const { page } = await passkeySignIn(plain, device, { credentialId: mine, signWithKeyOf: theirs });
    expect(alertOf(page)).toBe(NOT_ACCEPTED);
    expect(await refusalsSince(plain, since)).toEqual(['passkey response not valid']);
  });

  it('accepts an assertion once: a replay is refused', async () => {
    const { page, request, credential, browser } = await passkeySignIn(plain, authenticator);
    expect(page.statusCode).toBe(303);
    const since = Date.now();
    const replayed = await browser.post(submitPasskeySignIn, { request, credential });
    expect(replayed.statusCode).toBe(400);
    const again = requestIdOf(
      await browser.get(authorize, authorizationQuery(plain.application.id, { prompt: 'login' })),
    );
    const onNewRequest = await browser.post(submitPasskeySignIn, { request: again, credential });
    expect(onNewRequest.statusCode).toBe(401);
    expect(alertOf(onNewRequest)).toBe('This passkey request expired or was used already. Try again.');
    expect(await refusalsSince(plain, since)).toEqual(['passkey challenge expired or used']);
  });

  it("refuses a challenge another browser asked for (each browser's pending sign-in has its own)", async () => {
    await accepted();
    const asker = new PagesBrowser();
    const theirs = requestIdOf(await asker.get(authorize, authorizationQuery(plain.application.id)));
    const options = json(await asker.post(passkeyOptions, { purpose: 'sign-in', request: theirs }));
    const attacker = new PagesBrowser();
    const mine = requestIdOf(await attacker.get(authorize, authorizationQuery(plain.application.id)));
    const credential = JSON.stringify(authenticator.assert(options));
    const refused = await attacker.post(submitPasskeySignIn, { request: mine, credential });
    expect(alertOf(refused)).toBe('This passkey request expired or was used already. Try again.');
    // Refused elsewhere, the challenge is still its browser's to use.
    expect((await asker.post(submitPasskeySignIn, { request: theirs, credential })).statusCode).toBe(303);
  });

  it('refuses a challenge older than 5 minutes', async () => {
    const challengeAge = async (millis: number) => {
      const browser = new PagesBrowser();
      const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
      // The challenge is handed out in the past, so that the refusal's record keeps the real time.
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() - millis);
      const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
      vi.useRealTimers();
      const credential = JSON.stringify(authenticator.assert(options));
      return browser.post(submitPasskeySignIn, { request, credential });
    };
    expect((await challengeAge(5 * 60 * 1000 - 5000)).statusCode).toBe(303);
    const refused = await challengeAge(5 * 60 * 1000 + 1000);
    expect(alertOf(refused)).toBe('This passkey request expired or was used already. Try again.');
  });

  it('refuses a counter that did not grow, and flags the passkey for its person', async () => {
    await accepted();
    const stored = authenticator.credentials[0]?.counter as number;
    const since = Date.now();
    const { page } = await passkeySignIn(plain, authenticator, { counter: stored - 1 });
    expect(alertOf(page)).toBe(NOT_ACCEPTED);
    expect(await refusalsSince(plain, since)).toEqual(['counter went backwards']);
    const [passkey] = await listPasskeys(plain.organization.id, user.id);
    expect(passkey?.flaggedAt).toBeGreaterThanOrEqual(since);
    await accepted();
  });

  it("refuses another organization's passkey as unknown, and records nothing there", async () => {
    const stranger = await personWithPassword(mfa.organization.id);
    const theirs = await givePasskey(stranger);
    const since = Date.now();
    const { page } = await passkeySignIn(plain, theirs);
    expect(alertOf(page)).toBe(
      'This passkey is not registered here, or it was removed. Sign in another way.',
    );
    expect(await refusalsSince(plain, since)).toEqual(['unknown passkey']);
    expect(await auditTrail(mfa.organization.id, { actorId: stranger.id, action: 'signin.', since })).toEqual(
      [],
    );
    // The positive control: in its own organization it signs in.
    expect((await passkeySignIn(mfa, theirs)).page.statusCode).toBe(303);
  });

  it('refuses a removed passkey, and an INACTIVE person', async () => {
    const person = await personWithPassword(plain.organization.id);
    const theirs = await givePasskey(person);
    expect((await passkeySignIn(plain, theirs)).page.statusCode).toBe(303);
    await setUserStatus(plain.organization.id, person.id, 'INACTIVE');
    const inactive = await passkeySignIn(plain, theirs);
    expect(inactive.page.statusCode).toBe(403);
    await setUserStatus(plain.organization.id, person.id, 'ACTIVE');
    expect((await passkeySignIn(plain, theirs)).page.statusCode).toBe(303);
    const credentialId = theirs.credentials[0]?.id as string;
    await removePasskey(plain.organization.id, person.id, credentialKeyOf(credentialId));
    const removed = await passkeySignIn(plain, theirs);
    expect(alertOf(removed.page)).toBe(
      'This passkey is not registered here, or it was removed. Sign in another way.',
    );
  });

  it('tells whoever knows only a credential id nothing of its person: a made-up signature is refused alike', async () => {
    const [active, inactive] = await Promise.all([
      personWithPassword(plain.organization.id),
      personWithPassword(plain.organization.id),
    ]);
    const [activeKey, inactiveKey] = await Promise.all([givePasskey(active), givePasskey(inactive)]);
    await setUserStatus(plain.organization.id, inactive.id, 'INACTIVE');
    /** A fresh sign-in answered with the passkey's credential id and a signature that is made up. */
    const forgedWith = async (authenticator: SoftAuthenticator) => {
      const browser = new PagesBrowser();
      const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
      const answer = authenticator.assert(
        json(await browser.post(passkeyOptions, { purpose: 'sign-in', request })),
      );
      const signature = Buffer.from('not a signature').toString('base64url');
      const credential = JSON.stringify({ ...answer, response: { ...answer.response, signature } });
      const page = await browser.post(submitPasskeySignIn, { request, credential });
      return { status: page.statusCode, alert: alertOf(page) };
    };
    // Positive control: on an ACTIVE person's passkey, the answer to any signature that fails.
    const onActive = await forgedWith(activeKey);
    expect(onActive).toEqual({ status: 401, alert: NOT_ACCEPTED });
    const since = Date.now();
    expect(await forgedWith(inactiveKey)).toEqual(onActive);
    expect(await refusalsSince(plain, since)).toEqual(['passkey response not valid']);
  });

  it("never counts a refusal toward the owner's lockout: whoever knows a credential id cannot lock its owner", async () => {
    const person = await personWithPassword(plain.organization.id);
    const theirs = await givePasskey(person);
    // The credential id is not secret: answers that fail (a replay, a bad signature) need only it.
    const { credential: used } = await passkeySignIn(plain, theirs);
    /** On the attacker's own sign-in: an answer seen before, or one whose signature is made up. */
    const attempt = async (answer: (options: PublicKeyCredentialRequestOptionsJSON) => string) => {
      const browser = new PagesBrowser();
      const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
      const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
      return (await browser.post(submitPasskeySignIn, { request, credential: answer(options) })).statusCode;
    };
    const forged = (options: PublicKeyCredentialRequestOptionsJSON) => {
      const answer = theirs.assert(options);
      const signature = Buffer.from('not a signature').toString('base64url');
      return JSON.stringify({ ...answer, response: { ...answer.response, signature } });
    };
    for (let round = 0; round < 3; round += 1) {
      expect(await attempt(() => used)).toBe(401);
      expect(await attempt(forged)).toBe(401);
    }
    expect(await getItem(keys.signInFailures(plain.organization.id, person.email))).toBeUndefined();
    expect((await passkeySignIn(plain, theirs)).page.statusCode).toBe(303);
    const refusals = await auditTrail(plain.organization.id, { actorId: person.id, action: 'signin.' });
    expect(
      new Set(refusals.filter((record) => record.outcome === 'failure').map((record) => record.reason)),
    ).toEqual(new Set(['passkey challenge expired or used', 'passkey response not valid']));
  });

  it('refuses a person locked by wrong passwords, and a passkey sign-in after the lock ends clears the count', async () => {
    const person = await personWithPassword(plain.organization.id);
    const theirs = await givePasskey(person);
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
    for (let attempt = 0; attempt < 5; attempt += 1)
      await browser.post(submitSignIn, { request, email: person.email, password: 'not the password' });
    expect(await getItem(keys.signInFailures(plain.organization.id, person.email))).toMatchObject({
      failures: 5,
    });
    const locked = await passkeySignIn(plain, theirs);
    expect(locked.page.statusCode).toBe(401);
    const refusals = await auditTrail(plain.organization.id, { actorId: person.id, action: 'signin.failed' });
    expect(refusals.at(-1)?.reason).toBe('locked');
    vi.useFakeTimers({ now: Date.now() + 16 * 60 * 1000, toFake: ['Date'] });
    expect((await passkeySignIn(plain, theirs)).page.statusCode).toBe(303);
    expect(await getItem(keys.signInFailures(plain.organization.id, person.email))).toBeUndefined();
  });

  it('answers a clear page for an unreadable answer', async () => {
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
    for (const credential of ['', '{', '{"id":"x"}', JSON.stringify({ id: 'a'.repeat(5000) })]) {
      const page = await browser.post(submitPasskeySignIn, { request, credential });
      expect(page.statusCode).toBe(401);
      expect(alertOf(page)).toBe('The passkey answer could not be read. Try again, or sign in another way.');
    }
  });
});

describe('a passkey in an organization that asks for MFA', () => {
  /** A person's first sign-in up to TOTP enrolled: the browser and the request, still open. */
  const firstSignIn = async (user: UserRecord, extra: Record<string, string> = {}) => {
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
    await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD, ...extra });
    await browser.post(submitTotp, { request, code: totpCodeAt(await pendingTotpSecret(request)) });
    return { browser, request };
  };

  /** A person enrolled in TOTP (a first sign-in) who holds a passkey. */
  const enrolledWithPasskey = async () => {
    const user = await personWithPassword(mfa.organization.id);
    await firstSignIn(user);
    const enrolled = (await getUser(mfa.organization.id, user.id, true)) as UserRecord;
    return { user: enrolled, authenticator: await givePasskey(enrolled) };
  };

  const afterPassword = async (user: UserRecord) => {
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
    const page = await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
    return { browser, request, page };
  };

  it('stays with the person a sign-in identified first: a password of someone else on it is refused, and no passkey is made for them', async () => {
    // The attacker knows the victim's password, not their codes, and has an account of their own.
    const victim = await personWithPassword(mfa.organization.id);
    await firstSignIn(victim);
    const attacker = await personWithPassword(mfa.organization.id);
    const { browser, request } = await firstSignIn(attacker, { passkeys: 'available' });
    // Positive control: past the recovery codes, the attacker is offered a passkey of their own.
    expect(textOf(await browser.post(submitContinue, { request }))).toContain('data-passkey="enrol"');

    const takeover = await browser.post(submitSignIn, { request, email: victim.email, password: PASSWORD });
    expect(takeover.statusCode).toBe(400);
    expect(textOf(takeover)).toContain('already under way for someone else');
    expect((await getItem(keys.authorizationRequest(request)))?.userId).toBe(attacker.id);
    // The offer is still the attacker's own; the victim gets no passkey.
    expect(json(await browser.post(passkeyOptions, { purpose: 'enrol', request })).user.name).toBe(
      attacker.email,
    );
    expect(await listPasskeys(mfa.organization.id, victim.id)).toEqual([]);
  });

  it("serves as the second factor after the password, offering only the person's passkeys", async () => {
    const { user, authenticator } = await enrolledWithPasskey();
    const { browser, request, page } = await afterPassword(user);
    expect(textOf(page)).toContain('Use a passkey instead');
    const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
    expect(options.allowCredentials.map((allowed: { id: string }) => allowed.id)).toEqual([
      authenticator.credentials[0]?.id,
    ]);
    const signedIn = await browser.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(authenticator.assert(options)),
    });
    expect((await grantOf(mfa, signedIn)).amr).toEqual(['pwd', 'hwk', 'user', 'mfa']);
  });

  it('ends a sign-in whose password was reset before its passkey second factor', async () => {
    const { user, authenticator } = await enrolledWithPasskey();
    const { browser, request } = await afterPassword(user);
    const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
    await setUserStatus(mfa.organization.id, user.id, 'INACTIVE');
    await setUserStatus(mfa.organization.id, user.id, 'ACTIVE');
    // Ended (as by a reset): the deactivation moved the time earlier sign-ins end at.
    const refused = await browser.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(authenticator.assert(options)),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers?.location).toBeUndefined();
  });

  it("refuses another person's passkey as the second factor", async () => {
    const [mine, theirs] = await Promise.all([enrolledWithPasskey(), enrolledWithPasskey()]);
    const { browser, request } = await afterPassword(mine.user);
    const options = json(await browser.post(passkeyOptions, { purpose: 'sign-in', request }));
    const since = Date.now();
    const refused = await browser.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(theirs.authenticator.assert({ ...options, allowCredentials: [] })),
    });
    expect(alertOf(refused)).toBe(
      'This passkey belongs to another account. Use one of your own passkeys, or your code.',
    );
    expect(await refusalsSince(mfa, since)).toEqual(['passkey of another person']);
  });

  it('is a whole multi-factor sign-in on its own: no code asked', async () => {
    const { authenticator } = await enrolledWithPasskey();
    const { page } = await passkeySignIn(mfa, authenticator);
    expect((await grantOf(mfa, page)).amr).toEqual(['hwk', 'user', 'mfa']);
  });

  it('a synced passkey signs in with amr swk', async () => {
    const user = await personWithPassword(mfa.organization.id);
    const synced = await givePasskey(user, new SoftAuthenticator({ ...RP, backupEligible: true }));
    const { page } = await passkeySignIn(mfa, synced);
    expect((await grantOf(mfa, page)).amr).toEqual(['swk', 'user', 'mfa']);
    // Nor may it turn device-bound (its amr would say hwk).
    const since = Date.now();
    const bound = await passkeySignIn(mfa, synced, { backupEligible: false });
    expect(alertOf(bound.page)).toBe(NOT_ACCEPTED);
    expect(await refusalsSince(mfa, since)).toEqual(['backup eligibility changed']);
  });
});

describe('a person whose email domain an SSO provider serves', () => {
  it('is sent to the provider, as the password form sends them, however the passkey was added', async () => {
    const routed = await signInSetup();
    const domain = uniqueDomain();
    const person = await personWithPassword(routed.organization.id, PASSWORD, `person@${domain}`);
    const theirs = await givePasskey(person);
    // The positive control: before the provider serves the domain, the passkey signs in.
    expect(locationOf((await passkeySignIn(routed, theirs)).page).searchParams.get('code')).toBeTruthy();
    await providerServing(routed.organization.id, domain);
    const { page, request } = await passkeySignIn(routed, theirs);
    expect(page.statusCode).toBe(303);
    const sentTo = locationOf(page);
    expect(sentTo.pathname).toBe('/signin/sso');
    expect(Object.fromEntries(sentTo.searchParams)).toEqual({
      request,
      provider: `workforce-${domain}`,
      login_hint: person.email,
    });
  });
});
