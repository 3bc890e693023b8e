import * as oidc from 'openid-client';
import { beforeAll, expect, it } from 'vitest';
import { getUser, type UserRecord } from '../../shared/store/user-repository.js';
import { hiddenField } from '../support/browser-session.js';
import { storedPasskey } from '../support/passkeys.js';
import { useService } from '../support/service.js';
import {
  type Application,
  exchange,
  newApplication,
  relyingParty,
  startSignIn,
} from '../support/sign-in-flow.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

/**
 * Passkeys over HTTP, through the local server (docs/passkeys.md): the pages' script and their
 * policy, and a sign-in with a passkey whose ID token, taken by openid-client, carries its `amr`.
 * The refusals are int tests (test/int/passkey-sign-in.int.test.ts); Chromium's virtual
 * authenticator drives the same pages in test/browser/passkeys.browser.test.ts.
 */

const service = useService();

let application: Application;
let rp: oidc.Configuration;
let person: UserRecord;
let authenticator: SoftAuthenticator;

beforeAll(async () => {
  const organization = await service.freshOrganizationWithUser();
  application = await newApplication(service, organization);
  rp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
  person = (await getUser(organization.orgId, organization.user.id, true)) as UserRecord;
  const origin = new URL(service.baseUrl);
  authenticator = new SoftAuthenticator({ rpId: origin.hostname, origin: origin.origin });
  await storedPasskey(person, authenticator, 'Key');
});

it("serves the pages' script from their own origin, which only passkey pages may run", async () => {
  const script = await fetch(`${service.baseUrl}/signin/passkeys.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(script.headers.get('x-content-type-options')).toBe('nosniff');
  expect(await script.text()).toContain('form[data-passkey]');

  const { response } = await startSignIn(rp);
  const policy = response.headers.get('content-security-policy') ?? '';
  expect(policy).toContain("script-src 'self'; connect-src 'self'");
  expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(await response.text()).toContain('<script type="module" src="/signin/passkeys.js"></script>');
  const signedOut = await fetch(`${service.baseUrl}/oauth2/logout`);
  expect(signedOut.headers.get('content-security-policy')).not.toContain('script-src');
});

it('signs in with a passkey and no password: the ID token says hwk, user, mfa', async () => {
  const flow = await startSignIn(rp);
  const request = hiddenField(await flow.response.text(), 'request') ?? '';
  const options = await flow.browser.submit(`${service.baseUrl}/signin/passkeys/options`, {
    purpose: 'sign-in',
    request,
  });
  expect(options.status).toBe(200);
  const credential = JSON.stringify(authenticator.assert((await options.json()) as never));
  const answer = await flow.browser.submit(`${service.baseUrl}/signin/passkey`, { request, credential });
  expect(answer.status).toBe(303);
  const tokens = await exchange(rp, { ...flow, location: new URL(answer.headers.get('location') ?? '') });
  expect(tokens.claims()).toMatchObject({ sub: person.id, amr: ['hwk', 'user', 'mfa'] });
});

it('answers the options endpoint clear 4xx JSON for what it cannot use', async () => {
  for (const body of ['purpose=other', 'purpose=sign-in&request=nope', 'purpose=account']) {
    const answer = await fetch(`${service.baseUrl}/signin/passkeys/options`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(answer.status, body).toBeGreaterThanOrEqual(400);
    expect(answer.status, body).toBeLessThan(500);
    expect(((await answer.json()) as { message: string }).message.length, body).toBeGreaterThan(0);
  }
});
