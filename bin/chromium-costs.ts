import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';

/**
 * `npx tsx bin/chromium-costs.ts`: what Chromium spends, in CPU of all its processes (those that
 * ended included), on what the browser tests do most: a new context, a new tab, a navigation in a
 * tab, and a move to another site by a link, with and without a process per site. docs/testing.md
 * says which the browser tests avoid and why.
 */

const ROUNDS = 10;
const EXECUTABLE = process.env.IDP_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** CPU (ms) of this process's descendants, with what their ended children used (Linux /proc). */
const descendantsCpuMillis = (): number => {
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, and the same of children waited for (cutime, cstime).
      const ticks = [11, 12, 13, 14].reduce((sum, field) => sum + Number(fields[field]), 0);
      stats.set(Number(entry), { parent: Number(fields[1]), ticks });
    } catch {
      // Ended while read.
    }
  }
  let ticks = 0;
  for (const [pid, { ticks: own }] of stats) {
    let ancestor = stats.get(pid)?.parent;
    while (ancestor !== undefined && ancestor > 1 && ancestor !== process.pid)
      ancestor = stats.get(ancestor)?.parent;
    if (ancestor === process.pid) ticks += own;
  }
  return ticks * 10; // 100 ticks a second on Linux
};

const server = createServer((request, response) => {
  response.setHeader('content-type', 'text/html');
  response.end(`<!doctype html><title>page</title><main><h1>${request.url}</h1><button>Go</button></main>`);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const [here, elsewhere] = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];

const measure = async (label: string, run: () => Promise<unknown>) => {
  const before = descendantsCpuMillis();
  await run();
  console.log(`${label}: ${Math.round((descendantsCpuMillis() - before) / ROUNDS)} ms of CPU each`);
};

const rounds = async (step: (round: number) => Promise<unknown>) => {
  for (let round = 0; round < ROUNDS; round++) await step(round);
};

const browse = async (siteIsolation: boolean) => {
  const browser: Browser = await chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: [
      '--no-sandbox',
      `--host-resolver-rules=MAP localhost 127.0.0.1`,
      ...(siteIsolation
        ? []
        : ['--disable-site-isolation-trials', '--disable-features=site-per-process,IsolateOrigins']),
    ],
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${here}/warm`);
  const setting = siteIsolation ? 'a process per site' : 'one process for all sites';
  await measure(`${setting}: a new context with a tab and a page`, () =>
    rounds(async (round) => {
      const other = await browser.newContext();
      await (await other.newPage()).goto(`${here}/context-${round}`);
      await other.close();
    }),
  );
  await measure(`${setting}: a new tab with a page`, () =>
    rounds(async (round) => {
      const tab = await context.newPage();
      await tab.goto(`${here}/tab-${round}`);
      await tab.close();
    }),
  );
  await measure(`${setting}: a page in the same tab`, () =>
    rounds((round) => page.goto(`${here}/same-${round}`)),
  );
  await measure(`${setting}: a link to another site`, () =>
    rounds(async (round) => {
      const target = `${round % 2 ? here : elsewhere}/link-${round}`;
      await page.evaluate(`location.href = ${JSON.stringify(target)}`);
      await page.waitForURL(target);
    }),
  );
  await browser.close();
};

await browse(true);
await browse(false);
server.close();
