import { decodeJwt, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureSsoProvider,
  type SsoProviderConfiguration,
  unbindSsoProvider,
} from '../../shared/store/sso-provider-repository.js';
import { setUserStatus } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { type BrowserSession, hiddenField } from '../support/browser-session.js';
import { type IdTokenScript, startScriptedUpstream } from '../support/scripted-upstream.js';
import { type ClientCaller, uniqueEmail, useService } from '../support/service.js';
import {
  exchange,
  followRedirects,
  newApplication,
  REDIRECT,
  relyingParty,
  startSignIn,
} from '../support/sign-in-flow.js';
import { startUpstreamProvider } from '../support/upstream-provider.js';

const service = useService();

const CLIENT_ID = 'acme-upstream';
const SECRET = 'upstream-secret-0123456789';
const DAY = 86_400_000;

let upstream: Awaited<ReturnType<typeof startUpstreamProvider>>;
let admin: ClientCaller;
let rp: oidc.Configuration;

const provider = (overrides: Partial<SsoProviderConfiguration> = {}) =>
  configureSsoProvider(
    {
      clientId: CLIENT_ID,
      organizationIds: [admin.orgId],
      clientSecret: SECRET,
      issuer: upstream.issuer,
      displayName: 'Acme Login',
      emailDomains: ['acme.test'],
      jitProvisioning: false,
      trustedForMfa: false,
      ...overrides,
    },
    'test',
  );

beforeAll(async () => {
  upstream = await startUpstreamProvider({
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    redirectUri: `${service.baseUrl}/signin/sso/callback/${CLIENT_ID}`,
  });
  admin = await service.freshOrganization({ name: 'Acme' });
  const application = await newApplication(service, admin);
  rp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
  await provider();
});

afterAll(() => upstream?.close());

/** A person of the upstream, signed in there as `email`. */
const upstreamPerson = (
  email = uniqueEmail('person').replace('@example.com', '@acme.test'),
  verified = true,
) => {
  upstream.accounts.set(email, { email, email_verified: verified, name: 'Ada Upstream' });
  upstream.signInAs(email);
  return email;
};

const personInIdp = async (email: string, as: ClientCaller = admin) =>
  service.createUser({ email, name: 'Ada', as });

const follow = (browser: BrowserSession, response: Response) => followRedirects(service, browser, response);

/** Opens the sign-in page, presses "Continue with Acme Login", follows everything. */
const federatedSignIn = async (application = rp, options: Parameters<typeof startSignIn>[1] = {}) => {
  const flow = await startSignIn(application, options);
  const page = await flow.response.text();
  expect(page).toContain('Continue with Acme Login');
  const request = hiddenField(page, 'request') ?? '';
  const start = await flow.browser.fetch(
    `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: CLIENT_ID })}`,
  );
  return { ...flow, ...(await follow(flow.browser, start)) };
};

describe('sign-in through an SSO provider (oidc-provider upstream)', () => {
  it('signs a person of the organization in; the token calls the management API', async () => {
    const email = upstreamPerson();
    const userId = await personInIdp(email);
    const flow = await federatedSignIn();
    expect(flow.location?.searchParams.get('code')).toBeTruthy();
    const tokens = await exchange(rp, flow);
    // The provider vouched for the email (it refuses one it has not verified): it is verified here now.
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({
      sub: userId,
      email,
      email_verified: true,
      amr: ['fed'],
    });
    const permissions = await service.call('GET', '/idp/me/ui-permissions', { token: tokens.access_token });
    expect(permissions.status).toBe(200);
    expect(await auditTrail(admin.orgId, { actorId: userId, action: 'signin.' })).toEqual([
      expect.objectContaining({
        action: 'signin.federated',
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', id: userId, name: email, ip: expect.any(String) }),
        signIn: { application: rp.clientMetadata().client_id, amr: ['fed'], provider: CLIENT_ID },
      }),
    ]);
  });

  it('refuses a person unknown to the organization, unless just-in-time creation is on', async () => {
    const email = upstreamPerson();
    const refused = await federatedSignIn();
    expect(refused.response.status).toBe(403);
    expect(await refused.response.text()).toContain(`${email} has no account in Acme`);

    await provider({ jitProvisioning: true });
    // The name becomes one the API allows: one line, at most 200 characters.
    upstream.accounts.set(email, {
      email,
      email_verified: true,
      name: `Ada\u0007\nUpstream ${'y'.repeat(300)}`,
    });
    try {
      const created = await federatedSignIn();
      const tokens = await exchange(rp, created);
      const users = await service.call<{ email: string; name: string }[]>('GET', '/idp/users', {
        token: admin.token,
      });
      const name = `Ada Upstream ${'y'.repeat(187)}`;
      expect(users.body).toContainEqual(expect.objectContaining({ email, name }));
      expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ email, email_verified: true });
    } finally {
      await provider({ jitProvisioning: false });
    }
  });

  it('refuses an email the upstream has not verified, and an inactive user', async () => {
    const unverified = upstreamPerson(undefined, false);
    await personInIdp(unverified);
    const first = await federatedSignIn();
    expect(first.response.status).toBe(403);
    expect(await first.response.text()).toContain('did not confirm your email address');

    const inactive = upstreamPerson();
    const inactiveId = await personInIdp(inactive);
    await setUserStatus(admin.orgId, inactiveId, 'INACTIVE');
    const second = await federatedSignIn();
    expect(second.response.status).toBe(403);
    expect(await second.response.text()).toContain('This account cannot sign in');
    // Each refusal recorded with its reason and provider: the matched person, or the email claimed.
    const refusals = (await auditTrail(admin.orgId, { action: 'signin.failed' })).filter((record) =>
      [unverified, inactive].includes(record.actor.name ?? ''),
    );
    expect(refusals.map((record) => [record.actor.id, record.reason, record.signIn?.provider])).toEqual([
      ['anonymous', 'email-not-verified', CLIENT_ID],
      [inactiveId, 'inactive', CLIENT_ID],
    ]);
  });

  it('says the secret has probably expired when the upstream refuses it and the hint has passed', async () => {
    await personInIdp(upstreamPerson());
    await provider({ clientSecret: 'a-wrong-secret', clientSecretExpirationDate: Date.now() - DAY });
    const expired = await federatedSignIn();
    expect(expired.response.status).toBe(502);
    const expiredText = await expired.response.text();
    expect(expiredText).toContain('refused this service&#39;s client secret, which expired on');
    expect(expiredText).not.toContain('a-wrong-secret');

    await provider({ clientSecret: 'a-wrong-secret', clientSecretExpirationDate: Date.now() + 30 * DAY });
    const refused = await federatedSignIn();
    expect(await refused.response.text()).toContain('check the SSO provider&#39;s client id and secret');

    // The customer's own update takes effect at the next sign-in.
    const updated = await service.call('POST', `/idp/sso-providers/${CLIENT_ID}`, {
      token: admin.token,
      body: { clientSecret: SECRET },
    });
    expect(updated.status).toBe(204);
    expect((await federatedSignIn()).location?.searchParams.get('code')).toBeTruthy();
  });

  it('sends an email of a domain the provider serves there without asking for a password', async () => {
    const email = upstreamPerson();
    await personInIdp(email);
    const flow = await startSignIn(rp);
    const page = await flow.response.text();
    expect(page).not.toMatch(/name="password"[^>]*required/);
    const submitted = await flow.browser.submit(`${service.baseUrl}/signin`, {
      request: hiddenField(page, 'request') ?? '',
      email: email.toUpperCase(),
      password: '',
    });
    const sso = new URL(submitted.headers.get('location') ?? '', service.baseUrl);
    expect(sso.pathname).toBe('/signin/sso');
    expect(sso.searchParams.get('login_hint')).toBe(email.toUpperCase());
    const started = await flow.browser.fetch(sso.href);
    const upstreamLocation = new URL(started.headers.get('location') ?? '');
    expect(upstreamLocation.origin).toBe(upstream.issuer);
    expect(upstreamLocation.searchParams.get('code_challenge_method')).toBe('S256');
    const done = await follow(flow.browser, started);
    expect((await exchange(rp, { ...flow, location: done.location })).access_token).toBeTruthy();
  });

  /** A pending sign-in in its own browser, through the upstream up to (not into) IDP's callback. */
  const upToCallback = async () => {
    const flow = await startSignIn(rp);
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    let response = await flow.browser.fetch(
      `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: CLIENT_ID })}`,
    );
    for (let hop = 0; hop < 12; hop++) {
      const location = new URL(response.headers.get('location') ?? '', response.url);
      if (location.pathname.startsWith('/signin/sso/callback/')) return { ...flow, callback: location.href };
      response = await flow.browser.fetch(location.href);
    }
    throw new Error('Never reached the callback');
  };

  it('completes a state only in the browser whose sign-in started it, and once', async () => {
    await personInIdp(upstreamPerson());
    const first = await upToCallback();
    const second = await upToCallback();
    // Positive control: the second browser completes its own state.
    const own = await follow(second.browser, await second.browser.fetch(second.callback));
    expect(own.location?.searchParams.get('code')).toBeTruthy();
    // The attack: the same browser, its binding cookie still valid, brings the first browser's state.
    expect(second.browser.cookies.get('idp-browser')).toBeTruthy();
    const foreign = await second.browser.fetch(first.callback);
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('location')).toBeNull();
    expect(await foreign.text()).toContain('opened in another browser');
    // The state was left unused: the first browser completes it, once.
    const done = await follow(first.browser, await first.browser.fetch(first.callback));
    expect(done.location?.searchParams.get('code')).toBeTruthy();
    expect((await first.browser.fetch(first.callback)).status).toBe(400);
  });

  it('asks for TOTP enrolment when the organization uses MFA, unless the provider is trusted for it', async () => {
    const mfaAdmin = await service.freshOrganization({ name: 'Acme with MFA', mfaEnabled: true });
    const application = await newApplication(service, mfaAdmin);
    const mfaRp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
    await provider({ organizationIds: [admin.orgId, mfaAdmin.orgId] });
    const email = upstreamPerson();
    await personInIdp(email, mfaAdmin);
    try {
      const enrol = await federatedSignIn(mfaRp);
      // Followed to the page IDP's enrolment step answers.
      expect(new URL(enrol.response.url).pathname).toBe('/signin/enrol');
      expect(await enrol.response.text()).toContain('Set up two-step verification');

      // Trusted: the upstream's own multi-factor sign-in replaces TOTP; its ID token here says
      // nothing about how the person signed in (oidc-provider sends no amr), so TOTP stays.
      await provider({ organizationIds: [admin.orgId, mfaAdmin.orgId], trustedForMfa: true });
      const unsaid = await federatedSignIn(mfaRp);
      expect(new URL(unsaid.response.url).pathname).toBe('/signin/enrol');

      // An upstream that says `mfa` (RFC 8176) is taken at its word.
      const scripted = await startScriptedUpstream('mfa-upstream');
      try {
        scripted.script((claims, sign) => sign({ ...claims, amr: ['pwd', 'otp', 'mfa'] }));
        // Of a domain it serves, which no other provider of the organization does (acme.test is
        // Acme Login's).
        const elsewhere = uniqueEmail('mfa').replace('@example.com', '@mfa-upstream.test');
        await personInIdp(elsewhere, mfaAdmin);
        scripted.signInAs(elsewhere);
        await configureSsoProvider(
          {
            clientId: 'mfa-upstream',
            organizationIds: [mfaAdmin.orgId],
            clientSecret: 's',
            issuer: scripted.issuer,
            trustedForMfa: true,
            emailDomains: ['mfa-upstream.test'],
          },
          'test',
        );
        const flow = await startSignIn(mfaRp);
        const request = hiddenField(await flow.response.text(), 'request') ?? '';
        const start = await flow.browser.fetch(
          `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: 'mfa-upstream' })}`,
        );
        const trusted = await follow(flow.browser, start);
        expect(decodeJwt((await exchange(mfaRp, { ...flow, ...trusted })).id_token ?? '').amr).toEqual([
          'fed',
          'mfa',
        ]);
      } finally {
        await scripted.close();
      }
    } finally {
      await provider();
    }
  });

  it('answers a provider parameter that names no provider with the "not available" page, whatever its value', async () => {
    const flow = await startSignIn(rp);
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    const start = async (provider: string) => {
      const answer = await flow.browser.fetch(
        `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider })}`,
      );
      const page = await answer.text();
      return answer.status === 303
        ? 'upstream'
        : page.includes('This sign-in option is not available here') && answer.status;
    };
    // Positive controls: the provider sends the person upstream; an unknown id of ordinary length is not offered.
    expect(await start(CLIENT_ID)).toBe('upstream');
    expect(await start('no-such-provider')).toBe(404);
    // Longer than a DynamoDB key may be, and characters no client id holds.
    expect(await start('x'.repeat(1100))).toBe(404);
    expect(await start(`${CLIENT_ID}/..`)).toBe(404);
    expect(await start('\u0000\uFFFF')).toBe(404);
  });

  it('stops offering a provider unbound from the organization', async () => {
    const other = await service.freshOrganization();
    await provider({ organizationIds: [admin.orgId, other.orgId] });
    await personInIdp(upstreamPerson());
    const flow = await startSignIn(rp);
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    await unbindSsoProvider(CLIENT_ID, admin.orgId, 'test');
    try {
      const page = await (await startSignIn(rp)).response.text();
      expect(page).not.toContain('Continue with');
      const start = await flow.browser.fetch(
        `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: CLIENT_ID })}`,
      );
      expect(start.status).toBe(404);
    } finally {
      await provider();
    }
  });

  it("passes prompt=login on with max_age=0: the upstream signs the person in again despite its own session, and its auth_time is the session's", async () => {
    const email = upstreamPerson();
    await personInIdp(email);
    const first = await federatedSignIn();
    expect(first.location?.searchParams.get('code')).toBeTruthy();
    const logins = upstream.logins();
    // Signed out of IDP (with the ID token as the hint, so at once), not of the upstream: the
    // upstream's own session signs the person in.
    const { id_token: hint = '' } = await exchange(rp, first);
    await first.browser.fetch(
      `${service.baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: hint })}`,
    );
    const reused = await federatedSignIn(rp, { browser: first.browser });
    expect(reused.location?.searchParams.get('code')).toBeTruthy();
    expect(upstream.logins()).toBe(logins);
    expect(upstream.lastAuthorization().has('max_age')).toBe(false);

    // An upstream whose clock says the person signed in 3 s before being sent there (within the
    // clock skew allowed for auth_time).
    const authenticatedAt = Math.floor(Date.now() / 1000) - 3;
    upstream.signInAs(email, { authenticatedAt });
    const again = await federatedSignIn(rp, { browser: first.browser, extra: { prompt: 'login' } });
    expect(upstream.logins()).toBe(logins + 1);
    expect(Object.fromEntries(upstream.lastAuthorization())).toMatchObject({ prompt: 'login', max_age: '0' });
    expect(decodeJwt((await exchange(rp, again)).id_token ?? '').auth_time).toBe(authenticatedAt);
  });

  it("sends the application's max_age upstream and refuses an upstream sign-in older than it", async () => {
    const email = upstreamPerson();
    await personInIdp(email);
    const now = Math.floor(Date.now() / 1000);
    upstream.signInAs(email, { authenticatedAt: now - 200 });
    const recent = await federatedSignIn(rp, { extra: { max_age: '300' } });
    expect(upstream.lastAuthorization().get('max_age')).toBe('300');
    expect(decodeJwt((await exchange(rp, recent)).id_token ?? '').auth_time).toBe(now - 200);

    upstream.signInAs(email, { authenticatedAt: now - 600 });
    const stale = await federatedSignIn(rp, { extra: { max_age: '300' } });
    expect(stale.location).toBeUndefined();
    expect(stale.response.status).toBe(502);
    expect(await stale.response.text()).toContain(
      'The application needs you to have signed in recently, and Acme Login did not ask you to sign in again.',
    );
  });

  it('shows a clear page when the upstream cannot be reached', async () => {
    const closed = 'http://127.0.0.1:9';
    await provider({ issuer: closed });
    try {
      const flow = await startSignIn(rp);
      const request = hiddenField(await flow.response.text(), 'request') ?? '';
      const start = await flow.browser.fetch(
        `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: CLIENT_ID })}`,
      );
      expect(start.status).toBe(502);
      expect(await start.text()).toContain('Acme Login could not be reached');
    } finally {
      await provider();
    }
  });
});

describe('ID tokens IDP refuses (a scripted upstream)', () => {
  const SCRIPTED = 'scripted-upstream';
  let scripted: Awaited<ReturnType<typeof startScriptedUpstream>>;
  /** The scripted upstream speaks for scripted.test: only a provider's own domains are vouched for. */
  const scriptedAddress = (label: string) => uniqueEmail(label).replace('@example.com', '@scripted.test');
  const scriptedEmail = scriptedAddress('scripted');

  beforeAll(async () => {
    scripted = await startScriptedUpstream(SCRIPTED);
    await configureSsoProvider(
      {
        clientId: SCRIPTED,
        organizationIds: [admin.orgId],
        clientSecret: 'scripted-secret',
        issuer: scripted.issuer,
        displayName: 'Scripted',
        emailDomains: ['scripted.test'],
      },
      'test',
    );
    scripted.signInAs(scriptedEmail);
    await personInIdp(scriptedEmail);
  });
  afterAll(() => scripted?.close());

  const signInThroughScripted = async (extra: Record<string, string> = {}) => {
    const flow = await startSignIn(rp, { extra });
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    const start = await flow.browser.fetch(
      `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: SCRIPTED })}`,
    );
    return { ...flow, ...(await follow(flow.browser, start)) };
  };

  const foreignKey = generateKeyPair('ES256');
  const unsigned = (claims: JWTPayload) =>
    `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

  const refusals: [string, IdTokenScript][] = [
    [
      'a changed payload',
      async (claims, sign) => {
        const [header, , signature] = (await sign(claims)).split('.');
        const changed = Buffer.from(JSON.stringify({ ...claims, email: 'admin@scripted.test' })).toString(
          'base64url',
        );
        return `${header}.${changed}.${signature}`;
      },
    ],
    ['another nonce', (claims, sign) => sign({ ...claims, nonce: 'a-nonce-of-another-sign-in' })],
    ['no nonce', (claims, sign) => sign({ ...claims, nonce: undefined })],
    ['another audience', (claims, sign) => sign({ ...claims, aud: 'another-client' })],
    ['an azp of another client', (claims, sign) => sign({ ...claims, azp: 'another-client' })],
    // The Kelvin sign lowercases to "k": such an address must never reach an account.
    ['a lookalike email address', (claims, sign) => sign({ ...claims, email: '\u212Aate@scripted.test' })],
    ['another issuer', (claims, sign) => sign({ ...claims, iss: 'https://evil.example' })],
    ['an expired token', (claims, sign) => sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 600 })],
    ['an iat in the future', (claims, sign) => sign({ ...claims, iat: Math.floor(Date.now() / 1000) + 600 })],
    [
      'a token not yet valid',
      (claims, sign) => sign({ ...claims, nbf: Math.floor(Date.now() / 1000) + 600 }),
    ],
    ['alg none', async (claims) => unsigned(claims)],
    [
      'a key the upstream does not publish',
      async (claims) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'ES256', kid: 'scripted-1' })
          .sign((await foreignKey).privateKey),
    ],
    [
      'HS256 keyed with the client secret',
      async (claims) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: 'scripted-1' })
          .sign(new TextEncoder().encode('scripted-secret')),
    ],
  ];

  it.each(refusals)(
    'refuses %s with a page saying the answer could not be verified',
    async (_name, script) => {
      scripted.script(script);
      const flow = await signInThroughScripted();
      expect(flow.location).toBeUndefined();
      expect(flow.response.status).toBe(502);
      expect(await flow.response.text()).toContain('The answer from Scripted could not be verified');
    },
  );

  it('refuses an authorization response naming another issuer (RFC 9207)', async () => {
    scripted.script((claims, sign) => sign(claims));
    scripted.nameIssuerInResponses('https://evil.example');
    try {
      const flow = await signInThroughScripted();
      expect(await flow.response.text()).toContain('The answer from Scripted could not be verified');
      scripted.nameIssuerInResponses(scripted.issuer);
      expect((await signInThroughScripted()).location?.searchParams.get('code')).toBeTruthy();
    } finally {
      scripted.nameIssuerInResponses(undefined);
    }
  });

  it('refuses an error answer naming another issuer (RFC 9207 2.4), as it refuses a success', async () => {
    /** A sign-in sent to the scripted upstream, brought back to the callback with `answer`. */
    const errorBack = async (answer: Record<string, string>) => {
      const flow = await startSignIn(rp);
      const request = hiddenField(await flow.response.text(), 'request') ?? '';
      const start = await flow.browser.fetch(
        `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: SCRIPTED })}`,
      );
      const state = new URL(start.headers.get('location') ?? '').searchParams.get('state') ?? '';
      const callback = await flow.browser.fetch(
        `${service.baseUrl}/signin/sso/callback/${SCRIPTED}?${new URLSearchParams({ ...answer, state })}`,
      );
      const location = callback.headers.get('location') ?? '';
      return {
        status: callback.status,
        toApplication: location.startsWith(REDIRECT) ? new URL(location).searchParams.get('error') : null,
      };
    };
    // Positive control: the upstream's own error answer (its iss) reaches the application.
    expect(await errorBack({ error: 'access_denied', iss: scripted.issuer })).toEqual({
      status: 303,
      toApplication: 'access_denied',
    });
    // Only the issuer it names differs.
    expect(await errorBack({ error: 'access_denied', iss: 'https://evil.example' })).toEqual({
      status: 502,
      toApplication: null,
    });
  });

  it("refuses an answer delivered to another provider's redirect URI (mix-up)", async () => {
    const flow = await startSignIn(rp);
    const request = hiddenField(await flow.response.text(), 'request') ?? '';
    const start = await flow.browser.fetch(
      `${service.baseUrl}/signin/sso?${new URLSearchParams({ request, provider: SCRIPTED })}`,
    );
    const atUpstream = await flow.browser.fetch(start.headers.get('location') ?? '');
    const answer = new URL(atUpstream.headers.get('location') ?? '');
    expect(answer.pathname).toBe(`/signin/sso/callback/${SCRIPTED}`);
    answer.pathname = `/signin/sso/callback/${CLIENT_ID}`;
    expect((await flow.browser.fetch(answer.href)).status).toBe(400);
  });

  it('does not let a provider vouch for a domain another provider of the organization serves', async () => {
    scripted.script((claims, sign) => sign(claims));
    const email = uniqueEmail('taken').replace('@example.com', '@acme.test');
    await personInIdp(email);
    scripted.signInAs(email);
    try {
      const flow = await signInThroughScripted();
      expect(flow.response.status).toBe(403);
      expect(await flow.response.text()).toContain('does not sign in people with acme.test addresses here');
    } finally {
      scripted.signInAs(scriptedEmail);
    }
  });

  it('takes a 401 without a body for a refused client, and says when the secret expired', async () => {
    await configureSsoProvider(
      { clientId: SCRIPTED, organizationIds: [admin.orgId], clientSecretExpirationDate: Date.now() - DAY },
      'test',
    );
    scripted.answerTokenRequests({ status: 401, body: '' });
    try {
      const flow = await signInThroughScripted();
      expect(await flow.response.text()).toContain('client secret, which expired on');
    } finally {
      scripted.answerTokenRequests(undefined);
    }
  });

  it('refuses just-in-time creation for a provider that names no email domains', async () => {
    await expect(
      configureSsoProvider(
        {
          clientId: 'domainless-upstream',
          organizationIds: [admin.orgId],
          clientSecret: 's',
          issuer: scripted.issuer,
          jitProvisioning: true,
        },
        'test',
      ),
    ).rejects.toThrow('Just-in-time creation needs the email domains');
  });

  it('needs auth_time when it sent max_age; without max_age, a sign-in without auth_time counts from now', async () => {
    scripted.script((claims, sign) => sign(claims));
    const before = Math.floor(Date.now() / 1000);
    const plain = await signInThroughScripted();
    expect(scripted.lastAuthorization().has('max_age')).toBe(false);
    expect(decodeJwt((await exchange(rp, plain)).id_token ?? '').auth_time).toBeGreaterThanOrEqual(before);

    const unsaid = await signInThroughScripted({ max_age: '300' });
    expect(scripted.lastAuthorization().get('max_age')).toBe('300');
    expect(unsaid.response.status).toBe(502);
    expect(await unsaid.response.text()).toContain('The answer from Scripted could not be verified');

    const authenticatedAt = Math.floor(Date.now() / 1000) - 100;
    scripted.authenticatedAt(authenticatedAt);
    try {
      const said = await signInThroughScripted({ max_age: '300' });
      expect(decodeJwt((await exchange(rp, said)).id_token ?? '').auth_time).toBe(authenticatedAt);
    } finally {
      scripted.authenticatedAt(undefined);
    }
  });

  it('signs in a person whose upstream name is longer than a name here, or not a string', async () => {
    const withName = async (name: unknown) => {
      scripted.script((claims, sign) => sign({ ...claims, name }));
      const flow = await signInThroughScripted();
      return flow.location?.searchParams.has('code') ? 'signed in' : flow.response.status;
    };
    try {
      // Positive control: a name of 500 characters; then only its length, or its type, differs.
      expect(await withName('N'.repeat(500))).toBe('signed in');
      expect(await withName('N'.repeat(501))).toBe('signed in');
      expect(await withName('N'.repeat(5000))).toBe('signed in');
      expect(await withName(42)).toBe('signed in');
    } finally {
      scripted.script((claims, sign) => sign(claims));
    }
  });

  it('refuses an auth_time older than prompt=login or max_age allows by more than a few seconds of clock skew', async () => {
    scripted.script((claims, sign) => sign(claims));
    const outcome = async (secondsBeforeSending: number, extra: Record<string, string>) => {
      scripted.authenticatedAt(Math.floor(Date.now() / 1000) - secondsBeforeSending);
      const flow = await signInThroughScripted(extra);
      return flow.location?.searchParams.has('code')
        ? 'signed in'
        : (await flow.response.text()).includes('Scripted did not ask you to sign in again')
          ? 'too old'
          : 'other';
    };
    try {
      // Positive control: a fresh upstream sign-in passes prompt=login.
      expect(await outcome(0, { prompt: 'login' })).toBe('signed in');
      expect(scripted.lastAuthorization().get('max_age')).toBe('0');
      // Within the library's 60 s of clock tolerance, but a reused session all the same.
      expect(await outcome(50, { prompt: 'login' })).toBe('too old');
      expect(await outcome(100, { prompt: 'login' })).toBe('too old');
      // The same with max_age: 300 s passes, 350 s does not.
      expect(await outcome(300, { max_age: '300' })).toBe('signed in');
      expect(await outcome(350, { max_age: '300' })).toBe('too old');
    } finally {
      scripted.authenticatedAt(undefined);
    }
  });

  it('sends the person upstream again when its sign-in there predates a change to the account here, never counting it as recent', async () => {
    scripted.script((claims, sign) => sign(claims));
    const email = scriptedAddress('changed');
    const userId = await personInIdp(email);
    scripted.signInAs(email);
    const hourAgo = Math.floor(Date.now() / 1000) - 3600;
    scripted.authenticatedAt(hourAgo);
    const authTimeOf = async (flow: Awaited<ReturnType<typeof signInThroughScripted>>) =>
      decodeJwt((await exchange(rp, flow)).id_token ?? '').auth_time;
    try {
      // Positive control: an hour-old sign-in upstream signs the person in, as an hour old.
      expect(await authTimeOf(await signInThroughScripted())).toBe(hourAgo);
      expect(scripted.lastAuthorization().has('max_age')).toBe(false);
      // A change here ends every earlier sign-in (a deactivation, then a reactivation).
      await setUserStatus(admin.orgId, userId, 'INACTIVE');
      await setUserStatus(admin.orgId, userId, 'ACTIVE');
      // The same old upstream sign-in: sent back upstream to sign in again, and refused when the
      // upstream answers with it again.
      const stale = await signInThroughScripted();
      expect(scripted.lastAuthorization().get('max_age')).toBe('0');
      expect(scripted.lastAuthorization().get('prompt')).toBe('login');
      expect(stale.location).toBeUndefined();
      expect(await stale.response.text()).toContain('Scripted did not ask you to sign in again');
      // Signed in again there: the session takes that time.
      const now = Math.floor(Date.now() / 1000);
      scripted.authenticatedAt(now);
      expect(await authTimeOf(await signInThroughScripted())).toBe(now);
    } finally {
      scripted.authenticatedAt(undefined);
      scripted.signInAs(scriptedEmail);
    }
  });

  describe("the person's link to the upstream subject (OpenID Connect Core 5.7)", () => {
    const links = (userId: string, as: ClientCaller = admin) =>
      service.call<{ clientId: string; subject: string }[]>('GET', `/idp/users/${userId}/sso-links`, {
        token: as.token,
      });
    const signedInAs = async (flow: Awaited<ReturnType<typeof signInThroughScripted>>) =>
      decodeJwt((await exchange(rp, flow)).id_token ?? '').sub;

    it('matches no account by email for a provider that names no email domains (it would vouch for anyone, an administrator too)', async () => {
      scripted.script((claims, sign) => sign(claims));
      const signedInWith = async (email: string) => {
        scripted.signInAs(email);
        const flow = await signInThroughScripted();
        return flow.response.status === 200 || flow.response.status === 303
          ? decodeJwt((await exchange(rp, flow)).id_token ?? '').sub
          : { status: flow.response.status, page: await flow.response.text() };
      };
      const [control, target] = [scriptedAddress('control'), scriptedAddress('target')];
      const [controlId, targetId] = [await personInIdp(control), await personInIdp(target)];
      try {
        // Positive control: with its domain, the provider vouches for a person of it.
        expect(await signedInWith(control)).toBe(controlId);
        await configureSsoProvider(
          { clientId: SCRIPTED, organizationIds: [admin.orgId], emailDomains: [] },
          'test',
        );
        // Without: the same kind of answer matches nobody, and links nobody.
        expect(await signedInWith(target)).toEqual({
          status: 403,
          page: expect.stringContaining('Scripted names no email domains it signs in here'),
        });
        expect((await links(targetId)).body).toEqual([]);
        // Someone it linked before still signs in through it.
        expect(await signedInWith(control)).toBe(controlId);
      } finally {
        await configureSsoProvider(
          { clientId: SCRIPTED, organizationIds: [admin.orgId], emailDomains: ['scripted.test'] },
          'test',
        );
        scripted.signInAs(scriptedEmail);
      }
    });

    it('links the first subject; the same email with another subject is refused until an administrator unlinks it', async () => {
      scripted.script((claims, sign) => sign(claims));
      const email = scriptedAddress('linked');
      const userId = await personInIdp(email);
      try {
        scripted.signInAs(email, `first-${userId}`);
        expect(await signedInAs(await signInThroughScripted())).toBe(userId);
        expect((await links(userId)).body).toEqual([
          {
            clientId: SCRIPTED,
            issuer: scripted.issuer,
            subject: `first-${userId}`,
            linkedAt: expect.any(Number),
          },
        ]);
        // Positive control: the linked subject signs in again.
        expect(await signedInAs(await signInThroughScripted())).toBe(userId);

        // The upstream gives the address to someone else (another subject), and vouches for it.
        scripted.signInAs(email, `second-${userId}`);
        const refused = await signInThroughScripted();
        expect(refused.response.status).toBe(403);
        expect(await refused.response.text()).toContain(
          'This account is linked to another Scripted identity',
        );
        expect(
          (await auditTrail(admin.orgId, { actorId: userId, action: 'signin.failed' })).map((r) => r.reason),
        ).toEqual(['linked-to-another-identity']);
        expect((await links(userId)).body).toEqual([expect.objectContaining({ subject: `first-${userId}` })]);

        const unlinked = await service.call('DELETE', `/idp/users/${userId}/sso-links/${SCRIPTED}`, {
          token: admin.token,
        });
        expect(unlinked.status).toBe(204);
        expect(await signedInAs(await signInThroughScripted())).toBe(userId);
        expect((await links(userId)).body).toEqual([
          expect.objectContaining({ subject: `second-${userId}` }),
        ]);
        expect(
          (await auditTrail(admin.orgId, { action: 'ssoLink.' }))
            .filter((record) => record.targets[0]?.id === userId)
            .map((record) => [record.action, record.actor.id, record.targets[1]?.name]),
        ).toEqual([
          ['ssoLink.created', userId, `first-${userId}`],
          ['ssoLink.removed', admin.principalId, `first-${userId}`],
          ['ssoLink.created', userId, `second-${userId}`],
        ]);
      } finally {
        scripted.signInAs(scriptedEmail);
      }
    });

    it('signs the linked subject in to its own account, whatever email the upstream says now', async () => {
      scripted.script((claims, sign) => sign(claims));
      const email = scriptedAddress('moved');
      const userId = await personInIdp(email);
      const holderOfNewAddress = scriptedAddress('holder');
      const holderId = await personInIdp(holderOfNewAddress);
      try {
        scripted.signInAs(email, `moved-${userId}`);
        expect(await signedInAs(await signInThroughScripted())).toBe(userId);
        // Positive control: an unlinked subject with the other address gets that address's account.
        scripted.signInAs(holderOfNewAddress, `holder-${holderId}`);
        expect(await signedInAs(await signInThroughScripted())).toBe(holderId);
        // The linked person's upstream address becomes one another account holds: still their own.
        scripted.signInAs(holderOfNewAddress, `moved-${userId}`);
        expect(await signedInAs(await signInThroughScripted())).toBe(userId);
      } finally {
        scripted.signInAs(scriptedEmail);
      }
    });

    it("shows and removes links only of the caller's organization", async () => {
      scripted.script((claims, sign) => sign(claims));
      const email = scriptedAddress('isolated');
      const userId = await personInIdp(email);
      const other = await service.freshOrganization({ name: 'Elsewhere' });
      try {
        scripted.signInAs(email, `isolated-${userId}`);
        await signInThroughScripted();
        expect((await links(userId)).body).toHaveLength(1);
        expect((await links(userId, other)).status).toBe(404);
        const foreign = await service.call('DELETE', `/idp/users/${userId}/sso-links/${SCRIPTED}`, {
          token: other.token,
        });
        expect(foreign.status).toBe(404);
        expect((await links(userId)).body).toHaveLength(1);
        const notLinked = await service.call('DELETE', `/idp/users/${userId}/sso-links/${CLIENT_ID}`, {
          token: admin.token,
        });
        expect(notLinked.status).toBe(404);
      } finally {
        scripted.signInAs(scriptedEmail);
      }
    });
  });

  it('accepts the same upstream when its ID token is right', async () => {
    scripted.script((claims, sign) => sign(claims));
    const flow = await signInThroughScripted();
    expect((await exchange(rp, flow)).access_token).toBeTruthy();
  });
});
