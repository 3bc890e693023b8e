import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureSsoProvider,
  deleteSsoProvider,
  type SsoProviderConfiguration,
  unbindSsoProvider,
} from '../../shared/store/sso-provider-repository.js';
import { type BrowserSession, hiddenField } from '../support/browser-session.js';
import { startScriptedUpstream } from '../support/scripted-upstream.js';
import { type ClientCaller, uniqueEmail, useService } from '../support/service.js';
import {
  exchange,
  followRedirects,
  newApplication,
  REDIRECT,
  relyingParty,
  startSignIn,
} from '../support/sign-in-flow.js';

/**
 * What an SSO provider signed in ends once operators delete it or unbind it from the
 * organization (docs/single-sign-on.md, "Operators"): its browser sessions sign nobody in
 * again, its refresh tokens refresh nothing and introspect inactive, and its sign-ins parked at a
 * later step do not finish. A provider created again under the same client id inherits none.
 */

const service = useService();

let admin: ClientCaller;
let rp: oidc.Configuration;
const upstreams: Awaited<ReturnType<typeof startScriptedUpstream>>[] = [];

beforeAll(async () => {
  admin = await service.freshOrganization({ name: 'Removal' });
  const application = await newApplication(service, admin);
  rp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
});
afterAll(() => Promise.all(upstreams.map((upstream) => upstream.close())));

/** A scripted upstream behind a new provider of `domain`, signing in a new person of `as`. */
const providerWithPerson = async (
  clientId: string,
  overrides: Partial<SsoProviderConfiguration> = {},
  as: ClientCaller = admin,
) => {
  const upstream = await startScriptedUpstream(clientId);
  upstreams.push(upstream);
  const domain = `${clientId}.test`;
  const configuration = {
    clientId,
    organizationIds: [as.orgId],
    clientSecret: 'removal-secret',
    issuer: upstream.issuer,
    displayName: 'Removal',
    emailDomains: [domain],
    ...overrides,
  };
  await configureSsoProvider(configuration, 'test');
  const email = uniqueEmail('removal').replace('@example.com', `@${domain}`);
  await service.createUser({ email, name: 'Removal', as });
  upstream.signInAs(email);
  return { upstream, configuration };
};

const follow = (browser: BrowserSession, response: Response) => followRedirects(service, browser, response);

const signInThrough = async (clientId: string, application = rp) => {
  const flow = await startSignIn(application, { extra: { scope: 'openid offline_access' } });
  const request = hiddenField(await flow.response.text(), 'request') ?? '';
  const start = await flow.browser.fetch(
    `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: clientId })}`,
  );
  return { ...flow, ...(await follow(flow.browser, start)) };
};

/** What the sign-in still does: refresh (or the error), introspect, sign the browser in silently. */
const standing = async (browser: BrowserSession, refreshToken: string) => {
  const introspected = await oidc.tokenIntrospection(rp, refreshToken);
  const refresh = await oidc.refreshTokenGrant(rp, refreshToken).then(
    (tokens) => ({ outcome: 'refreshed', token: tokens.refresh_token ?? '' }),
    (error: { error?: string }) => ({ outcome: error.error ?? 'refused', token: refreshToken }),
  );
  const again = await startSignIn(rp, { browser });
  const silently = again.response.headers.get('location')?.startsWith(REDIRECT) ?? false;
  return { active: introspected.active, refreshed: refresh.outcome, silently, next: refresh.token };
};

const STANDS = { active: true, refreshed: 'refreshed', silently: true };
const ENDED = { active: false, refreshed: 'invalid_grant', silently: false };

describe('a removed SSO provider', () => {
  it.each(['deleted', 'unbound'])(
    'ends the sessions and refresh tokens it made once it is %s',
    async (how) => {
      const clientId = `removal-${how}`;
      const other = await service.freshOrganization({ name: 'Other' });
      await providerWithPerson(
        clientId,
        how === 'unbound' ? { organizationIds: [admin.orgId, other.orgId] } : {},
      );
      const flow = await signInThrough(clientId);
      const tokens = await exchange(rp, flow);
      // Positive control: while the provider serves the organization, its sign-in stands.
      const before = await standing(flow.browser, tokens.refresh_token ?? '');
      expect(before).toEqual({ ...STANDS, next: expect.any(String) });

      if (how === 'deleted') await deleteSsoProvider(clientId);
      else await unbindSsoProvider(clientId, admin.orgId, 'test');

      expect(await standing(flow.browser, before.next)).toEqual({ ...ENDED, next: before.next });
    },
  );

  it('does not pass its sign-ins on to a provider created again under the same client id', async () => {
    const clientId = 'removal-recreated';
    const { configuration } = await providerWithPerson(clientId);
    const flow = await signInThrough(clientId);
    const tokens = await exchange(rp, flow);
    const before = await standing(flow.browser, tokens.refresh_token ?? '');
    expect(before).toEqual({ ...STANDS, next: expect.any(String) });

    // The same client id, issuer and domains: only the provider instance differs.
    await deleteSsoProvider(clientId);
    await configureSsoProvider(configuration, 'test');

    expect(await standing(flow.browser, before.next)).toEqual({ ...ENDED, next: before.next });
    // The new provider signs the person in afresh, and that sign-in stands.
    const anew = await signInThrough(clientId);
    const fresh = await exchange(rp, anew);
    expect(await standing(anew.browser, fresh.refresh_token ?? '')).toEqual({
      ...STANDS,
      next: expect.any(String),
    });
  });

  it('does not finish a sign-in it made that waits at the two-step verification step', async () => {
    const mfaAdmin = await service.freshOrganization({ name: 'Removal with MFA', mfaEnabled: true });
    const application = await newApplication(service, mfaAdmin);
    const mfaRp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
    const clientId = 'removal-parked';
    await providerWithPerson(clientId, {}, mfaAdmin);
    const flow = await signInThrough(clientId, mfaRp);
    expect(new URL(flow.response.url).pathname).toBe('/signin/enrol');
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    const submit = () => flow.browser.submit(`${service.baseUrl}/signin/totp`, { request, code: '000000' });
    // Positive control: the step takes the form (a wrong code asks again).
    const wrong = await submit();
    expect(wrong.status).toBe(303);
    expect(wrong.headers.get('location')).toContain('/signin/enrol');

    await deleteSsoProvider(clientId);

    const after = await submit();
    expect(after.status).toBe(400);
    expect(await after.text()).toContain('This sign-in page has expired');
  });
});
