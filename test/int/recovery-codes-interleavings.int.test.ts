import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { recoveryCodeDigest } from '../../shared/domain/recovery-codes.js';
import { regenerateRecoveryCodes, showAccount } from '../../shared/passkeys/account.js';
import { useRecoveryCode } from '../../shared/store/credentials.js';
import {
  endUserSessions,
  getUser,
  requireUser,
  resetMfa,
  setUserStatus,
} from '../../shared/store/user-repository.js';
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
 * New recovery codes on the account page under interleavings: a second post, a deactivation, a
 * sign-out everywhere or an app reset committed between the page's read and its write; a notice
 * that cannot be queued. Handlers in process against DynamoDB Local, as
 * test/int/recovery-codes-account.int.test.ts.
 */

useDatabase();

let mfa: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  mfa = await signInSetup({ mfaEnabled: true });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const CODE = /<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g;
const codesOn = (page: Page) => [...textOf(page).matchAll(CODE)].map((match) => match[1] as string);
const csrfOf = (page: Page) => hiddenField(textOf(page), 'csrf') ?? '';

type Person = { organizationId: string; id: string; email: string };

/** Signs `user` in through the application in a new browser, enrolling the app shown (the org asks for MFA). */
const enrolInNewBrowser = async (user: Person) => {
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
  await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  const codesPage = await browser.post(submitTotp, {
    request,
    code: totpCodeAt(await pendingTotpSecret(request)),
  });
  expect(codesOn(codesPage)).toHaveLength(10);
  expect((await browser.post(submitContinue, { request })).statusCode).toBe(303);
  return browser;
};

const enrolledAndSignedIn = async () => {
  const user = await personWithPassword(mfa.organization.id);
  return { user, browser: await enrolInNewBrowser(user) };
};

const storedDigests = async (user: { organizationId: string; id: string }) =>
  (await getUser(user.organizationId, user.id, true))?.recoveryCodeDigests;

const codeWorks = (user: { organizationId: string; id: string }, code: string) =>
  useRecoveryCode({ organizationId: user.organizationId, userId: user.id }, [
    recoveryCodeDigest(user.id, code),
  ]);

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
