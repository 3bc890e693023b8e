import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium package (`.ci/run` installs it when missing); playwright-core downloads no browser. */
const EXECUTABLE = process.env.IDP_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Where the browser tests leave a screenshot of every page they see, for a person to look at. */
export const SCREENSHOTS = join(process.cwd(), '.tmp', 'screenshots');

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    // No sandbox: CI runs as root in a container. The rest keeps the browser off the network but
    // for the local service: `localhost` is the service's origin, which listens on 127.0.0.1 only
    // (Chromium would try ::1 too), and no other name resolves.
    args: [
      '--no-sandbox',
      '--host-resolver-rules=MAP localhost 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-default-apps',
      '--disable-sync',
      '--no-first-run',
      // One renderer process for every site a tab visits: a sign-in moves between the
      // application's site and the service's, and each move to another site's process cost
      // Chromium about a third of a second of CPU here. The tests check what pages and cookies
      // do, which does not depend on how Chromium spreads sites over processes.
      '--disable-site-isolation-trials',
      // The address bar's pop-up, which Chromium 156 preloads as a page of its own even headless,
      // kept a renderer busy while the browser was idle (about 0.15 of a core per browser here):
      // about a quarter of the browser tests' CPU. Chromium merges this list with Playwright's.
      '--disable-features=site-per-process,IsolateOrigins,WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
    ],
  });

/**
 * Saves the whole page as `<directory>/<nn>-<name>.png`, numbered in the order seen, when
 * `IDP_TEST_SCREENSHOTS=1` asks for them: for a person to look at, not a check, and about a sixth
 * of a browser test's CPU, so `npm test` leaves them out.
 */
export const screenshotter = (directory: string) => {
  if (process.env.IDP_TEST_SCREENSHOTS !== '1') return async (_page: Page, _name: string) => {};
  const folder = join(SCREENSHOTS, directory);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  let seen = 0;
  return async (page: Page, name: string) => {
    seen += 1;
    await page.screenshot({
      path: join(folder, `${String(seen).padStart(2, '0')}-${name}.png`),
      fullPage: true,
    });
  };
};

/** What the page refused or threw: Content-Security-Policy violations and uncaught errors. */
export const pageProblems = (page: Page): string[] => {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy')) {
      problems.push(message.text());
    }
  });
  return problems;
};

/**
 * axe-core's serious and critical violations on the page as it is, each as `rule: element`. axe is
 * evaluated through the DevTools protocol, which the page's Content-Security-Policy does not
 * govern, so the pages keep their policy while being checked.
 */
export const seriousAccessibilityViolations = async (page: Page): Promise<string[]> => {
  // Loaded once a page: the console's screens are one page, and axe's 500 KB need parsing once.
  if (!(await page.evaluate(() => 'axe' in globalThis))) {
    const { source } = await import('axe-core');
    await page.evaluate(source);
  }
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: typeof import('axe-core') }).axe;
    const results = await axe.run('html', { resultTypes: ['violations'] });
    return results.violations.map(({ id, impact, nodes }) => ({
      id,
      impact,
      targets: nodes.map((node) => String(node.target)),
    }));
  });
  return violations
    .filter(({ impact }) => impact === 'serious' || impact === 'critical')
    .flatMap(({ id, targets }) => targets.map((target) => `${id}: ${target}`));
};
