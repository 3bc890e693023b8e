import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { launchChromium, pageProblems } from './chromium.js';
import { PASSWORD } from './sign-in-flow.js';
import { withoutPasskeyAutofill } from './virtual-authenticator.js';

/**
 * The admin console in Chromium for a test file: one browser and one context for the file, a new
 * tab without cookies (no session) per test, and after each test no CSP violation or page error.
 * `signIn` goes through the hosted sign-in and declines the passkey offer.
 */
export const consoleInChromium = (address: () => string) => {
  let context: BrowserContext;
  let problems: string[] = [];
  const session = { page: undefined as unknown as Page };

  beforeAll(async () => {
    const browser = await launchChromium();
    // The console's copy buttons write to the clipboard, which tests read back.
    context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  });
  /** A context a test asked for alone (a faked clock is the context's, not the page's). */
  let own: BrowserContext | undefined;
  afterEach(async () => {
    expect(problems).toEqual([]);
    await session.page?.close();
    await own?.close();
    own = undefined;
  });
  afterAll(async () => {
    await context?.browser()?.close();
  });

  const openPage = async (options: { ownContext?: boolean } = {}) => {
    // A tab rather than a context per test: a context cost Chromium about twice a tab's CPU here.
    // The console keeps its tokens in memory and its pending sign-in in the tab's sessionStorage,
    // so a new tab without the context's cookies starts as a new browser would.
    await context.clearCookies();
    if (options.ownContext) own = await context.browser()?.newContext();
    session.page = await (own ?? context).newPage();
    await withoutPasskeyAutofill(session.page);
    problems = pageProblems(session.page);
    return session.page;
  };

  /** The hosted sign-in form, filled and sent once its script is ready. */
  const submitSignInForm = async (email: string) => {
    const page = session.page;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    // The page's script has looked for WebAuthn (so the passkey offer follows the password).
    // The script is built on the first request locally: on a loaded machine that takes seconds.
    await expect
      .poll(() => page.locator('input[name="passkeys"]').inputValue(), { timeout: 30_000 })
      .toBe('available');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  };

  const signIn = async (email: string) => {
    const page = session.page;
    await page.goto(address());
    // No session at the identity provider yet: the silent attempt comes back, and the console asks.
    await page.getByRole('button', { name: 'Sign in' }).click();
    await submitSignInForm(email);
    await page.getByRole('button', { name: 'Not now' }).click();
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();
  };

  /** Opens a screen from the navigation. */
  const openScreen = (title: string) =>
    session.page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: title }).click();

  return { session, openPage, signIn, submitSignInForm, openScreen };
};
