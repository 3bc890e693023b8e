import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLIENT_BUNDLE } from '../../bin/build-client.js';
import { launchChromium, pageProblems } from '../support/chromium.js';
import { type ClientCaller, useService } from '../support/service.js';
import { registerApplication } from '../support/sign-in-flow.js';

/**
 * `idp/client` in a browser: the bundled client, loaded by a page of a registered application's
 * origin, calls the management API across origins (CORS preflights, Idempotency-Key included).
 */

const service = useService();

/** The application's page: it loads the client as a module and hands it to the test. */
const CONSOLE_PAGE = `<!doctype html><title>Console</title><h1>Console</h1>
<script type="module">import * as client from '/idp-client.js'; globalThis.idpClient = client;</script>`;
type ClientModule = typeof import('../../shared/client/index.js');

let browser: Browser;
let page: Page;
let admin: ClientCaller;
let application: Server;
let problems: string[];
let origin: string;

beforeAll(async () => {
  const [bundled] = await Promise.all([
    // As `npm install` builds dist/client/index.js, in memory (the package test rebuilds dist/).
    build({
      ...CLIENT_BUNDLE,
      entryPoints: [...CLIENT_BUNDLE.entryPoints],
      write: false,
      outfile: 'idp-client.js',
    }),
    launchChromium().then((launched) => {
      browser = launched;
    }),
  ]);
  admin = await service.freshOrganization({ name: 'Console Co' });
  const clientCode = bundled.outputFiles[0]?.text ?? '';
  application = createServer((request, response) => {
    const isClient = request.url === '/idp-client.js';
    response.writeHead(200, { 'content-type': isClient ? 'text/javascript' : 'text/html' });
    response.end(isClient ? clientCode : CONSOLE_PAGE);
  });
  await new Promise<void>((resolve) => application.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(application.address() as AddressInfo).port}`;
  const registered = await registerApplication(
    service,
    { flowType: 'authorization_code', redirectUris: [`${origin}/callback`] },
    admin,
  );
  expect(registered.status).toBe(201);
  page = await browser.newPage();
  problems = pageProblems(page);
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => 'idpClient' in globalThis);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => application?.close(resolve));
});

it('runs in Chromium: a write, a read and a refusal from another origin', async () => {
  const outcome = await page.evaluate(
    async ({ baseUrl, token }) => {
      const { IdpClient, IdpApiError } = (globalThis as unknown as { idpClient: ClientModule }).idpClient;
      const idp = new IdpClient({ baseUrl, tokenProvider: async () => token, retry: { maxRetries: 0 } });
      const created = await idp.createUserGroup({ body: { name: 'Made in a browser' } });
      const read = await idp.getUserGroup({ path: { id: created.userGroup.id } });
      const refusal = await idp.getUser({ path: { id: 'nobody' } }).catch((error: unknown) => error);
      return {
        name: read.userGroup.name,
        refused:
          refusal instanceof IdpApiError ? [refusal.status, refusal.requestId !== ''] : String(refusal),
      };
    },
    { baseUrl: service.baseUrl, token: admin.token },
  );
  expect(outcome).toEqual({ name: 'Made in a browser', refused: [404, true] });
  expect(problems).toEqual([]);
});
