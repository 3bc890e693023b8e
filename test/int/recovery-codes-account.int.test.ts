import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { recoveryCodeDigest } from '../../shared/domain/recovery-codes.js';
import { logger } from '../../shared/http/logger.js';
import { regenerateRecoveryCodes, showAccount } from '../../shared/passkeys/account.js';
import { useRecoveryCode } from '../../shared/store/credentials.js';
import {
  endUserSessions,
  getUser,
  requireUser,
  resetMfa,
  setUserStatus,
} from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { hiddenField } from '../support/browser-session.js';
import { useDatabase } from '../support/database.js';
import {
  authorizationQuery,
  PASSWORD,
  type Page,
  PagesBrowser,
  pendingTotpSecret,
  personWithPassword,
  requestIdOf,
  signInSetup,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';
import { beforeCommand, beforeTransaction, type SentItems } from '../support/interleave.js';

/**
 * New recovery codes on the account page (shared/passkeys/account.ts): a person with an
 * authenticator app, signed in within 15 minutes with two-step verification, replaces all their
 * codes and sees the new ones once; and what a second post, a deactivation, a sign-out
 * everywhere or an app reset committed between the page's read and its write leave, or a notice
 * that cannot be queued. Handlers in process against DynamoDB Local.
 */

useDatabase();

let mfa: Awaited<ReturnType<typeof signInSetup>>;
let plain: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  [mfa, plain] = await Promise.all([signInSetup({ mfaEnabled: true }), signInSetup()]);
});

afterEach(() => {
  vi.useRealTimers();
});

const CODE = /<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g;
const codesOn = (page: Page) => [...textOf(page).matchAll(CODE)].map((match) => match[1] as string);
const csrfOf = (page: Page) => hiddenField(textOf(page), 'csrf') ?? '';

/** A person who set up their app in this browser's sign-in: the browser holds an MFA session. */
const enrolledAndSignedIn = async (where = mfa) => {
  const user = await personWithPassword(where.organization.id);
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(where.application.id)));
  await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  const codesPage = await browser.post(submitTotp, {
    request,
    code: totpCodeAt(await pendingTotpSecret(request)),
  });
  expect((await browser.post(submitContinue, { request })).statusCode).toBe(303);
  return { user, browser, codes: codesOn(codesPage) };
};

const storedDigests = async (user: { organizationId: string; id: string }) =>
  (await getUser(user.organizationId, user.id, true))?.recoveryCodeDigests;

/** Whether `code` signs the person in once (and uses it up). */
const codeWorks = (user: { organizationId: string; id: string }, code: string) =>
  useRecoveryCode({ organizationId: user.organizationId, userId: user.id }, [
    recoveryCodeDigest(user.id, code),
  ]);

describe('new recovery codes', () => {
  it('replace every earlier code, are shown once, recorded and told to the person', async () => {
    const { user, browser, codes } = await enrolledAndSignedIn();
    const account = await browser.get(showAccount, {});
    expect(textOf(account)).toContain('You have 10 recovery codes left.');
    expect(textOf(account)).toContain('Make new recovery codes');
    const queued = vi.spyOn(logger, 'info');

    const answer = await browser.post(regenerateRecoveryCodes, { csrf: csrfOf(account) });

    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['cache-control']).toBe('no-store');
    const fresh = codesOn(answer);
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => codes.includes(code))).toEqual([]);
    expect(await codeWorks(user, codes[0] as string)).toBe(false);
    expect(await codeWorks(user, fresh[0] as string)).toBe(true);
    expect(textOf(await browser.get(showAccount, {}))).toContain('You have 9 recovery codes left.');
    const [record, ...more] = await auditTrail(mfa.organization.id, {
      action: 'mfa.recoveryCodes.regenerated',
    });
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      actor: { type: 'user', id: user.id, name: user.email },
      targets: [{ type: 'user', id: user.id }],
      changes: { recoveryCodeDigests: 'changed' },
    });
    expect(JSON.stringify(record)).not.toContain(fresh[1]);
    expect(
      queued.mock.calls.filter(([message]) => message === 'email queued').map(([, fields]) => fields),
    ).toEqual([expect.objectContaining({ type: 'SECURITY_NOTICE_EMAIL', userId: user.id })]);
    queued.mockRestore();
  });

  it('need a sign-in of the last 15 minutes', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    expect((await browser.post(regenerateRecoveryCodes, { csrf })).statusCode).toBe(200);
    const before = await storedDigests(user);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    const account = await browser.get(showAccount, {});
    expect(textOf(account)).not.toContain('Make new recovery codes');
    const refused = await browser.post(regenerateRecoveryCodes, { csrf });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused)).toContain('your sign-in is more than 15 minutes old');
    expect(await storedDigests(user)).toEqual(before);
  });

  it("refuse a form without the session's own token: another person's valid one changes nothing", async () => {
    const [mine, theirs] = await Promise.all([enrolledAndSignedIn(), enrolledAndSignedIn()]);
    const theirToken = csrfOf(await theirs.browser.get(showAccount, {}));
    const before = await storedDigests(mine.user);
    const refused = await mine.browser.post(regenerateRecoveryCodes, { csrf: theirToken });
    expect(refused.statusCode).toBe(403);
    expect(await storedDigests(mine.user)).toEqual(before);
    // Positive control: their token works in their own browser, for them alone.
    expect((await theirs.browser.post(regenerateRecoveryCodes, { csrf: theirToken })).statusCode).toBe(200);
    expect(await storedDigests(mine.user)).toEqual(before);
  });

  it('are not offered to a person without an authenticator app, nor to a browser without a session', async () => {
    const user = await personWithPassword(plain.organization.id);
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(plain.application.id)));
    expect(
      (await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD })).statusCode,
    ).toBe(303);
    const account = await browser.get(showAccount, {});
    expect(account.statusCode).toBe(200);
    expect(textOf(account)).not.toContain('Two-step verification');
    const refused = await browser.post(regenerateRecoveryCodes, { csrf: csrfOf(account) });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused)).toContain('you have none set up');
    expect(await storedDigests(user)).toBeUndefined();
    expect(
      (await new PagesBrowser().post(regenerateRecoveryCodes, { csrf: csrfOf(account) })).statusCode,
    ).toBe(401);
  });

  it('are not stored for an app reset meanwhile: the next enrolment brings its own', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const reset = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('SET recoveryCodeDigests')),
      () => resetMfa(mfa.organization.id, user.id),
    );
    let answer: Page;
    try {
      answer = await browser.post(regenerateRecoveryCodes, { csrf });
    } finally {
      reset.stop();
    }
    expect(reset.ran).toBe(true);
    expect(answer.statusCode).toBe(409);
    expect(codesOn(answer)).toEqual([]);
    expect(await storedDigests(user)).toBeUndefined();
    expect(
      await auditTrail(mfa.organization.id, { action: 'mfa.recoveryCodes.regenerated', actorId: user.id }),
    ).toEqual([]);
  });
});

const isCodesWrite = (items: SentItems) =>
  items.some((item) => item.Update?.UpdateExpression?.includes('SET recoveryCodeDigests'));

/** Posts the form, running `meanwhile` just before its codes' transaction is sent. */
const postWith = async (browser: PagesBrowser, csrf: string, meanwhile: () => Promise<unknown>) => {
  const hook = beforeTransaction(isCodesWrite, meanwhile);
  try {
    const answer = await browser.post(regenerateRecoveryCodes, { csrf });
    expect(hook.ran).toBe(true);
    return answer;
  } finally {
    hook.stop();
  }
};

describe('new recovery codes under interleavings', () => {
  it('two posts at once (a double click, two tabs): one shows working codes, the other none', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    let second: Page | undefined;
    // The second post (the answer a double-clicking browser shows) runs while the first is about
    // to write, and commits first.
    const first = await postWith(browser, csrf, async () => {
      second = await browser.post(regenerateRecoveryCodes, { csrf });
    });
    // Positive control: the post that wrote shows working codes.
    expect(second?.statusCode).toBe(200);
    expect(await codeWorks(user, codesOn(second as Page)[0] as string)).toBe(true);
    // The other wrote nothing and shows no codes (before, it showed ten dead ones and won).
    expect(first.statusCode).toBe(409);
    expect(codesOn(first)).toEqual([]);
    expect(textOf(first)).toContain('new codes made in another tab');
    expect(await codeWorks(user, codesOn(second as Page)[1] as string)).toBe(true);
  });

  it('a deactivation committed meanwhile: no codes are stored for, nor shown to, the session', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    // Positive control: the same post, nothing meanwhile.
    expect((await browser.post(regenerateRecoveryCodes, { csrf })).statusCode).toBe(200);
    const before = await storedDigests(user);
    const answer = await postWith(browser, csrf, () =>
      setUserStatus(mfa.organization.id, user.id, 'INACTIVE'),
    );
    expect((await requireUser(mfa.organization.id, user.id, true)).status).toBe('INACTIVE');
    expect(answer.statusCode).toBe(401);
    expect(codesOn(answer)).toEqual([]);
    expect(await storedDigests(user)).toEqual(before);
  });

  it('a sign-out everywhere committed meanwhile: the ended session gets no codes', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    expect((await browser.post(regenerateRecoveryCodes, { csrf })).statusCode).toBe(200);
    const before = await storedDigests(user);
    const answer = await postWith(browser, csrf, async () =>
      endUserSessions(await requireUser(mfa.organization.id, user.id, true)),
    );
    // The session is ended: the account page no longer acts for it.
    expect((await browser.get(showAccount, {})).statusCode).toBe(401);
    expect(answer.statusCode).toBe(401);
    expect(codesOn(answer)).toEqual([]);
    expect(await storedDigests(user)).toEqual(before);
  });

  it('a notice that cannot be queued: the codes, replaced, are still shown', async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const before = await storedDigests(user);
    // The notice's outbox write fails (a throttle, a lost connection) after the codes' write.
    const outboxFails = beforeCommand(
      (input) => JSON.stringify((input as { Item?: unknown }).Item ?? '').includes('SECURITY_NOTICE_EMAIL'),
      async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
    );
    let outcome: Page | Error;
    try {
      outcome = await browser.post(regenerateRecoveryCodes, { csrf }).catch((error: Error) => error);
    } finally {
      outboxFails.stop();
    }
    expect(outboxFails.ran).toBe(true);
    // The codes are replaced, so the person must see them (before: a 500, every code dead).
    const shown = outcome instanceof Error ? [] : codesOn(outcome);
    expect(shown).toHaveLength(10);
    expect(await storedDigests(user)).not.toEqual(before);
    expect(await codeWorks(user, shown[0] as string)).toBe(true);
  });

  it("the 409 page after an app reset meanwhile does not show the reset app's codes and form", async () => {
    const { user, browser } = await enrolledAndSignedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const answer = await postWith(browser, csrf, () => resetMfa(mfa.organization.id, user.id));
    expect(answer.statusCode).toBe(409);
    expect(await storedDigests(user)).toBeUndefined();
    // Positive control: the page opened again says nothing of codes (no app any more).
    expect(textOf(await browser.get(showAccount, {}))).not.toContain('recovery codes left');
    // The 409 page was drawn from the person as read before the reset: 10 codes and the button.
    expect(textOf(answer)).not.toContain('You have 10 recovery codes left');
    expect(textOf(answer)).not.toContain('Make new recovery codes');
  });
});
