import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJws } from '../../shared/auth/compact-jwt.js';
import { hashPassword } from '../../shared/auth/passwords.js';
import { currentSigningKey } from '../../shared/auth/signing-keys.js';
import { setUserStatus, updateUserAttributes } from '../../shared/store/user-repository.js';
import { auditTrail, signInTrail } from '../support/audit.js';
import { BrowserSession, hiddenField } from '../support/browser-session.js';
import { uniqueEmail, useService } from '../support/service.js';
import {
  AFTER_LOGOUT,
  type Application,
  authorizationRequest,
  exchange,
  newApplication,
  PASSWORD,
  REDIRECT,
  registerApplication,
  relyingParty,
  signIn as signInAs,
  startSignIn,
} from '../support/sign-in-flow.js';

const service = useService();

let confidential: Application;
let publicApp: Application;
let person: { id: string; email: string };
let other: { id: string; email: string };
/** PASSWORD's hash, computed once: hashing is what a sign-in test spends its time on. */
let passwordHash: string;

const register = (body: Record<string, unknown>) => registerApplication(service, body);
const configurationOf = (application: Application, auth: oidc.ClientAuth) =>
  relyingParty(service, application, auth);
const signIn = (
  configuration: oidc.Configuration,
  options: {
    browser?: BrowserSession;
    password?: string;
    email?: string;
    extra?: Record<string, string>;
  } = {},
) => signInAs(service, configuration, { email: person.email, ...options });

/** openid-client as the confidential application, authenticating with its secret (Basic). */
const confidentialParty = () =>
  configurationOf(confidential, oidc.ClientSecretBasic(confidential.clientSecret));
const tokenRequest = (body: Record<string, string>, application = confidential) =>
  fetch(`${service.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(application.clientSecret
        ? { authorization: `Basic ${btoa(`${application.id}:${application.clientSecret}`)}` }
        : {}),
    },
    body: new URLSearchParams(application.clientSecret ? body : { ...body, client_id: application.id }),
  });

/** Why the token endpoint refused the client's requests since `since`, oldest first (their records). */
const refusalsOf = async (client: Application, since: number) =>
  (await auditTrail(service.organizationId, { action: 'token.refused', actorId: client.id, since })).map(
    (record) => record.reason,
  );

beforeAll(async () => {
  const registered = await register({
    flowType: 'authorization_code',
    redirectUris: [REDIRECT],
    postLogoutRedirectUris: [AFTER_LOGOUT],
  });
  expect(registered.status).toBe(201);
  confidential = registered.body;
  const registeredPublic = await register({
    flowType: 'authorization_code',
    redirectUris: [REDIRECT],
    tokenEndpointAuthMethod: 'none',
  });
  publicApp = registeredPublic.body;
  passwordHash = await hashPassword(PASSWORD);
  const email = uniqueEmail('signin');
  const id = await service.createUser({ email, name: 'Signing Person' });
  await updateUserAttributes(service.organizationId, id, { passwordHash });
  person = { id, email };
  const otherEmail = uniqueEmail('signin-other');
  const otherId = await service.createUser({ email: otherEmail, name: 'Another Person' });
  await updateUserAttributes(service.organizationId, otherId, { passwordHash });
  other = { id: otherId, email: otherEmail };
});

describe('applications', () => {
  it('registers an application and shows it without its secret', async () => {
    expect(confidential.clientSecret.length).toBeGreaterThan(30);
    expect(publicApp.clientSecret).toBe('');
    const shown = await service.call<Record<string, unknown>>('GET', `/idp/clients/${confidential.id}`, {
      token: service.admin.token,
    });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      id: confidential.id,
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: [AFTER_LOGOUT],
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(shown.body).not.toHaveProperty('clientSecret');
  });

  it.each([
    [{ flowType: 'implicit' }, 'implicit flow is not offered'],
    [{ flowType: 'authorization_code' }, 'needs at least one redirect URI'],
    [{ flowType: 'authorization_code', redirectUris: ['http://app.example/cb'] }, 'Must use https'],
    [{ flowType: 'authorization_code', redirectUris: ['https://app.example/cb#x'] }, 'fragment'],
    [{ redirectUris: ['https://app.example/cb'] }, 'Only for an authorization_code application'],
    [{ remoteAddresses: ['10.0.0.0/33'] }, 'Prefix length'],
  ])('refuses %j with a 400 saying why', async (body, reason) => {
    const response = await register(body);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(reason);
  });

  it('has no secret to rotate for a public application', async () => {
    const response = await service.call('POST', `/idp/clients/${publicApp.id}/rotateSecret`, {
      token: service.admin.token,
    });
    expect(response.status).toBe(409);
  });

  it('keeps client credentials to API clients, and to their registered addresses', async () => {
    const forApplication = await tokenRequest({ grant_type: 'client_credentials' });
    expect(forApplication.status).toBe(400);
    expect(await forApplication.json()).toMatchObject({ error: 'unauthorized_client' });
    const restricted = await register({ remoteAddresses: ['203.0.113.0/24'] });
    const fromElsewhere = await tokenRequest({ grant_type: 'client_credentials' }, restricted.body);
    expect(await fromElsewhere.json()).toMatchObject({ error: 'unauthorized_client' });
    const local = await register({ remoteAddresses: ['127.0.0.0/8', '::1/128', '::ffff:127.0.0.1'] });
    const fromHere = await tokenRequest({ grant_type: 'client_credentials' }, local.body);
    expect(fromHere.status).toBe(200);
  });
});

describe('authorization code flow with openid-client as the application', () => {
  it('signs a person in: code, tokens, the management API, userinfo, refresh', async () => {
    const configuration = await confidentialParty();
    const metadata = configuration.serverMetadata();
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    // Discovery's defaults would promise request_uri (OpenID Connect Discovery 3): said otherwise.
    expect(metadata).toMatchObject({
      response_modes_supported: ['query'],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
    });
    expect(metadata.end_session_endpoint).toBe(`${service.baseUrl}/oauth2/logout`);

    const since = Date.now();
    const flow = await signIn(configuration);
    expect(flow.location?.origin + (flow.location?.pathname ?? '')).toBe(REDIRECT);
    expect(flow.location?.searchParams.get('iss')).toBe(service.baseUrl);
    const tokens = await exchange(configuration, flow);
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      sub: person.id,
      aud: confidential.id,
      email: person.email,
      org: service.organizationId,
      amr: ['pwd'],
    });
    expect(claims?.auth_time).toBeTypeOf('number');
    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri as string));
    await jwtVerify(tokens.id_token as string, jwks, { issuer: service.baseUrl, audience: confidential.id });
    const { payload } = await jwtVerify(tokens.access_token, jwks, {
      issuer: service.baseUrl,
      audience: 'idp',
    });
    expect(payload).toMatchObject({ sub: person.id, principal_type: 'user', client_id: confidential.id });
    expect((payload.exp as number) - (payload.iat as number)).toBe(900);

    const permissions = await service.call('GET', '/idp/me/ui-permissions', { token: tokens.access_token });
    expect(permissions.status).toBe(200);

    const info = await oidc.fetchUserInfo(configuration, tokens.access_token, person.id);
    expect(info).toMatchObject({ sub: person.id, email: person.email, name: 'Signing Person' });

    const refreshed = await oidc.refreshTokenGrant(configuration, tokens.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.access_token).toBeTruthy();
    // One record of it all: the sign-in, as API Gateway saw the browser. Tokens issued record none.
    expect(await signInTrail(service.organizationId, person.id, since)).toEqual([
      expect.objectContaining({
        action: 'signin.succeeded',
        outcome: 'success',
        actor: {
          type: 'user',
          id: person.id,
          name: person.email,
          ip: expect.any(String),
          userAgent: expect.any(String),
        },
        targets: [{ type: 'user', id: person.id, name: person.email }],
        signIn: { application: confidential.id, amr: ['pwd'] },
        requestId: expect.any(String),
      }),
    ]);
    // The application's tokens are recorded by the sign-in (other clients' token.issued records
    // of earlier minutes are timed when written, so they may fall after `since`).
    expect(
      await auditTrail(service.organizationId, { action: 'token.', actorId: confidential.id, since }),
    ).toEqual([]);
  });

  it('revokes the whole family when a rotated refresh token comes back', async () => {
    const configuration = await confidentialParty();
    const tokens = await exchange(configuration, await signIn(configuration));
    const first = tokens.refresh_token as string;
    const second = (await oidc.refreshTokenGrant(configuration, first)).refresh_token as string;
    const since = Date.now();
    const reuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first });
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    const afterReuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: second });
    expect(await afterReuse.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await refusalsOf(confidential, since)).toEqual([
      'invalid_grant: The refresh token was already used; every token of this sign-in is revoked',
      'invalid_grant: The refresh token is invalid, expired or revoked',
    ]);
  });

  it('narrows the scope on a refresh, and refuses a wider one without using the refresh token up', async () => {
    const configuration = await confidentialParty();
    const flow = await signIn(configuration, { extra: { scope: 'openid email' } });
    const tokens = await exchange(configuration, flow);
    const narrowed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      scope: 'openid',
    });
    const narrow = (await narrowed.json()) as { scope: string; refresh_token: string };
    expect(narrow.scope).toBe('openid');
    // RFC 6749 section 6: beyond what the sign-in was granted is refused, and the token is kept.
    for (const scope of ['openid profile', 'openid admin']) {
      const widened = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: narrow.refresh_token,
        scope,
      });
      expect(await widened.json(), scope).toMatchObject({ error: 'invalid_scope' });
    }
    // A value repeated counts once (each becomes a condition of the rotating write).
    const repeated = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: narrow.refresh_token,
      scope: Array.from({ length: 300 }, () => 'openid').join(' '),
    });
    expect(repeated.status).toBe(200);
    const afterRepeated = (await repeated.json()) as { refresh_token: string; scope: string };
    expect(afterRepeated.scope).toBe('openid');
    const retried = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: afterRepeated.refresh_token,
    });
    expect(retried.status).toBe(200);
    const full = (await retried.json()) as { scope: string; refresh_token: string; id_token?: string };
    expect(full.scope).toBe('openid email');
    expect(full.id_token).toBeDefined();
    // Narrowed to leave openid out: an OAuth answer, without an ID token (the positive control above has one).
    const oauthOnly = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: full.refresh_token,
      scope: 'email',
    });
    expect(oauthOnly.status).toBe(200);
    const body = (await oauthOnly.json()) as { scope: string; id_token?: string; access_token: string };
    expect(body).toMatchObject({ scope: 'email', access_token: expect.any(String) });
    expect(body.id_token).toBeUndefined();
  });

  it('refuses a code the second time and revokes what the first use issued', async () => {
    const configuration = await confidentialParty();
    const flow = await signIn(configuration);
    const tokens = await exchange(configuration, flow);
    const code = flow.location?.searchParams.get('code') as string;
    const since = Date.now();
    const replay = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: flow.verifier,
    });
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await refusalsOf(confidential, since)).toEqual([
      'invalid_grant: The authorization code was already used; what it issued is revoked',
      'invalid_grant: The refresh token is invalid, expired or revoked',
    ]);
  });

  it('refuses a wrong verifier, another redirect URI and another client, leaving the code usable', async () => {
    const configuration = await confidentialParty();
    const flow = await signIn(configuration);
    const code = flow.location?.searchParams.get('code') as string;
    const since = Date.now();
    const wrongVerifier = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: oidc.randomPKCECodeVerifier(),
    });
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
    const wrongRedirect = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${REDIRECT}/other`,
      code_verifier: flow.verifier,
    });
    expect(await wrongRedirect.json()).toMatchObject({ error: 'invalid_grant' });
    const otherClient = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: flow.verifier },
      publicApp,
    );
    expect(await otherClient.json()).toMatchObject({ error: 'invalid_grant' });
    const missingVerifier = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
    });
    expect(await missingVerifier.json()).toMatchObject({ error: 'invalid_request' });
    await expect(exchange(configuration, flow)).resolves.toHaveProperty('access_token');
    const invalidCode =
      'invalid_grant: The authorization code is invalid, expired, or was issued for another request';
    expect(await refusalsOf(confidential, since)).toEqual([
      invalidCode,
      invalidCode,
      'invalid_request: code_verifier is required (PKCE)',
    ]);
    expect(await refusalsOf(publicApp, since)).toEqual([invalidCode]);
  });

  it('takes the authorization request posted as a form too (OpenID Connect Core 3.1.2.1), on as a GET', async () => {
    const configuration = await confidentialParty();
    const { url, ...flow } = await authorizationRequest(configuration, REDIRECT);
    const browser = new BrowserSession();
    // A sign-in under way in another tab of the browser: its binding cookie.
    expect((await browser.fetch(url.href)).status).toBe(200);
    const binding = browser.cookies.get('idp-browser');
    expect(binding).toBeDefined();
    // The post sets no cookie (a cross-site one carries none, and would replace the binding):
    // the browser comes back with a GET naming the request, which carries its cookies.
    const posted = await browser.submit(
      `${service.baseUrl}/oauth2/authorize`,
      Object.fromEntries(url.searchParams),
    );
    expect(posted.status).toBe(303);
    expect(posted.headers.getSetCookie()).toEqual([]);
    const next = new URL(posted.headers.get('location') ?? '', service.baseUrl);
    expect(next.pathname).toBe('/oauth2/authorize');
    expect([...next.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    const page = await browser.fetch(next.href);
    expect(page.status).toBe(200);
    expect(browser.cookies.get('idp-browser')).toBe(binding);
    // A reload of that page finds the request again (for its minute), unlike a pushed one's.
    const reloaded = await browser.fetch(next.href);
    expect(reloaded.status).toBe(200);
    expect(hiddenField(await reloaded.text(), 'request')).toBeDefined();
    // Only a request the GET would take is kept: an unknown application is refused at once, as by
    // the GET, and so is one too large once encoded (bytes that are not UTF-8 grow ninefold).
    const posted2 = (body: string | Buffer) =>
      browser.fetch(`${service.baseUrl}/oauth2/authorize`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const unknown = await posted2(
      new URLSearchParams({
        ...Object.fromEntries(url.searchParams),
        client_id: 'no-such-client',
      }).toString(),
    );
    expect([unknown.status, unknown.headers.get('location')]).toEqual([400, null]);
    const large = await posted2(
      Buffer.concat([Buffer.from(`${url.search.slice(1)}&filler=`), Buffer.alloc(60_000, 0xff)]),
    );
    expect(large.status).toBe(400);
    expect(await large.text()).toContain('larger than 64 KiB');
    const answer = await browser.submit(`${service.baseUrl}/signin`, {
      request: hiddenField(await page.text(), 'request') ?? '',
      email: person.email,
      password: PASSWORD,
    });
    const location = new URL(answer.headers.get('location') as string);
    expect((await exchange(configuration, { ...flow, location })).claims()?.sub).toBe(person.id);
    // A body that is no form is an error page, never a redirect.
    const unreadable = await browser.fetch(`${service.baseUrl}/oauth2/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: url.search.slice(1),
    });
    expect(unreadable.status).toBe(400);
    expect(unreadable.headers.get('location')).toBeNull();
  });

  it("starts the email field with the application's login_hint, as text", async () => {
    const configuration = await configurationOf(publicApp, oidc.None());
    const hinted = await startSignIn(configuration, { extra: { login_hint: person.email } });
    expect(await hinted.response.text()).toContain(`value="${person.email}"`);
    const hostile = await startSignIn(configuration, {
      extra: { login_hint: '"><img src=x onerror=alert(1)>' },
    });
    const page = await hostile.response.text();
    expect(page).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(page).not.toContain('<img');
  });

  it('signs a public application in with PKCE alone', async () => {
    const configuration = await configurationOf(publicApp, oidc.None());
    const tokens = await exchange(configuration, await signIn(configuration));
    expect(tokens.claims()?.aud).toBe(publicApp.id);
    const since = Date.now();
    const secretless = await tokenRequest({ grant_type: 'client_credentials' }, publicApp);
    expect(secretless.status).toBe(401);
    // Refused before any client was read (no secret at all): nobody's to record.
    expect(await refusalsOf(publicApp, since)).toEqual([]);
  });
});

describe('authorization request refusals', () => {
  const authorizeUrl = (parameters: Record<string, string>) =>
    `${service.baseUrl}/oauth2/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: confidential.id,
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st4te',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      ...parameters,
    })}`;

  it.each([
    ['an unknown client', { client_id: 'no-such-client' }],
    ['an unregistered redirect URI', { redirect_uri: 'https://attacker.example/cb' }],
    ['an API client', { client_id: 'API-CLIENT' }],
  ])('shows an error page and never redirects for %s', async (_case, parameters) => {
    const resolved = Object.fromEntries(
      Object.entries(parameters).map(([name, value]) => [
        name,
        value === 'API-CLIENT' ? service.clientId : value,
      ]),
    );
    const response = await fetch(authorizeUrl(resolved), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it.each([
    ['no PKCE', { code_challenge: '', code_challenge_method: '' }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no openid scope', { scope: 'email' }, 'invalid_scope'],
    ['the implicit flow', { response_type: 'token' }, 'unsupported_response_type'],
    ['prompt=none without a session', { prompt: 'none' }, 'login_required'],
    ['a max_age that is not a number of seconds', { max_age: '1.5' }, 'invalid_request'],
  ])('sends %s back to the application as an error', async (_case, parameters, error) => {
    const response = await fetch(authorizeUrl(parameters), { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('st4te');
  });

  /** A pending sign-in: its own browser (with its binding cookie) and the request its page carries. */
  const pendingSignIn = async (configuration: oidc.Configuration) => {
    const started = await startSignIn(configuration);
    expect(started.response.status).toBe(200);
    const request = hiddenField(await started.response.text(), 'request') ?? '';
    expect(request).not.toBe('');
    expect(started.browser.cookies.get('idp-browser')).toBeTruthy();
    return { ...started, request };
  };
  const submitPassword = (
    browser: BrowserSession,
    request: string,
    email = person.email,
    password = PASSWORD,
  ) => browser.submit(`${service.baseUrl}/signin`, { request, email, password });
  const codeOf = (answer: Response) =>
    new URL(answer.headers.get('location') ?? '', service.baseUrl).searchParams.get('code');

  it("refuses a sign-in form posted with another browser's request (login CSRF)", async () => {
    const configuration = await confidentialParty();
    const victim = await pendingSignIn(configuration);
    const attacker = await pendingSignIn(configuration);
    // Positive control: the attacker's browser posts its own request and signs in.
    const own = await submitPassword(attacker.browser, attacker.request);
    expect(own.status).toBe(303);
    expect(codeOf(own)).toBeTruthy();
    // The attack: the same browser, its own binding cookie still valid, posts the victim's request.
    expect(attacker.browser.cookies.get('idp-browser')).toBeTruthy();
    const refused = await submitPassword(attacker.browser, victim.request);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.text()).toContain('opened in another browser');
    // The victim's request was pending all along: its own browser completes it.
    const victims = await submitPassword(victim.browser, victim.request);
    expect(victims.status).toBe(303);
    expect(codeOf(victims)).toBeTruthy();
  });

  it('answers a wrong password, an unknown email and an INACTIVE user alike: the same status and page', async () => {
    const configuration = await confidentialParty();
    const inactive = uniqueEmail('inactive');
    const inactiveId = await service.createUser({ email: inactive, name: 'Inactive Person' });
    await updateUserAttributes(service.organizationId, inactiveId, { passwordHash });
    /** One attempt from its own pending sign-in; the page without what differs by request and email. */
    const attempt = async (email: string, password: string) => {
      const { browser, request } = await pendingSignIn(configuration);
      const answer = await submitPassword(browser, request, email, password);
      const page = (await answer.text()).replaceAll(request, '<request>').replaceAll(email, '<email>');
      return { answer, page };
    };
    // Positive control: the user, while ACTIVE, signs in with this very password.
    expect((await attempt(inactive, PASSWORD)).answer.status).toBe(303);
    await setUserStatus(service.organizationId, inactiveId, 'INACTIVE');

    const since = Date.now();
    const nobody = uniqueEmail('nobody');
    const answers = [
      await attempt(person.email, 'not the password at all'),
      await attempt(nobody, PASSWORD),
      await attempt(inactive, PASSWORD),
    ];
    const [wrong] = answers;
    expect(wrong?.answer.status).toBe(401);
    expect(wrong?.page).toContain('The email or password is not right.');
    expect(wrong?.page).toContain('value="<email>"');
    for (const { answer, page } of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('location')).toBeNull();
      expect(page).toBe(wrong?.page);
    }
    // The records tell them apart, for the administrator.
    const failed = (actor: Record<string, unknown>, reason: string) =>
      expect.objectContaining({
        action: 'signin.failed',
        outcome: 'failure',
        reason,
        actor: expect.objectContaining(actor),
        signIn: { application: confidential.id, amr: ['pwd'] },
      });
    expect(await signInTrail(service.organizationId, person.id, since)).toEqual([
      failed({ id: person.id, name: person.email }, 'wrong password'),
    ]);
    expect(
      (await signInTrail(service.organizationId, 'anonymous', since)).filter(
        (record) => record.actor.name === nobody,
      ),
    ).toEqual([failed({ id: 'anonymous', name: nobody }, 'unknown email')]);
    expect(await signInTrail(service.organizationId, inactiveId, since)).toEqual([
      failed({ id: inactiveId, name: inactive }, 'user not active'),
    ]);
  });

  it("does not reuse a session of another organization: that organization's application asks for sign-in", async () => {
    const configuration = await confidentialParty();
    const elsewhere = await service.freshOrganization({ name: 'Elsewhere' });
    const foreignApplication = await newApplication(service, elsewhere);
    const foreign = await configurationOf(
      foreignApplication,
      oidc.ClientSecretBasic(foreignApplication.clientSecret),
    );
    const { browser } = await signIn(configuration);
    // Positive control: the session answers the next request of its own organization with a code.
    const reused = await startSignIn(configuration, { browser });
    expect(reused.response.status).toBe(303);
    expect(codeOf(reused.response)).toBeTruthy();
    // The same browser, the same session, an application of another organization: asked to sign in.
    const asked = await startSignIn(foreign, { browser });
    expect(asked.response.status).toBe(200);
    expect(asked.response.headers.get('location')).toBeNull();
    const page = await asked.response.text();
    expect(page).toContain('Sign in to Elsewhere');
    expect(page).toContain('<button type="submit">Sign in</button>');
    const silent = await startSignIn(foreign, { browser, extra: { prompt: 'none' } });
    expect(silent.response.status).toBe(303);
    const back = new URL(silent.response.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('login_required');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('sessions and logout', () => {
  it('reuses the session for the next request, honours prompt=login, and signs out', async () => {
    const configuration = await confidentialParty();
    const since = Date.now();
    const first = await signIn(configuration);
    const tokens = await exchange(configuration, first);
    const silent = await signIn(configuration, { browser: first.browser, extra: { prompt: 'none' } });
    expect(silent.location?.searchParams.get('code')).toBeTruthy();
    // max_age: the session serves while recent enough, and is older than 0 s.
    const recent = await signIn(configuration, {
      browser: first.browser,
      extra: { prompt: 'none', max_age: '3600' },
    });
    expect(recent.location?.searchParams.get('code')).toBeTruthy();
    const tooOld = await signIn(configuration, {
      browser: first.browser,
      extra: { prompt: 'none', max_age: '0' },
    });
    expect(tooOld.location?.searchParams.get('error')).toBe('login_required');
    const forced = await first.browser.fetch(
      oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
        prompt: 'login',
      }).href,
    );
    expect(forced.status).toBe(200);
    expect(await forced.text()).toContain('<button type="submit">Sign in</button>');

    const unregistered = await first.browser.fetch(
      `${service.baseUrl}/oauth2/logout?${new URLSearchParams({ id_token_hint: tokens.id_token as string, post_logout_redirect_uri: 'https://attacker.example/' })}`,
    );
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers.get('location')).toBeNull();

    const logout = oidc.buildEndSessionUrl(configuration, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: AFTER_LOGOUT,
      state: 'bye',
    });
    const signedOut = await first.browser.fetch(logout.href);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=bye`);
    const afterLogout = await signIn(configuration, { browser: first.browser, extra: { prompt: 'none' } });
    expect(afterLogout.location?.searchParams.get('error')).toBe('login_required');
    // One sign-in (the session's reuses record nothing), then its end, through the hint's application.
    const records = await auditTrail(service.organizationId, { actorId: person.id, since });
    expect(records.map((record) => record.action)).toEqual(['signin.succeeded', 'session.ended']);
    expect(records[1]).toMatchObject({
      outcome: 'success',
      targets: [{ type: 'user', id: person.id }],
      signIn: { application: confidential.id, amr: ['pwd'] },
    });
  });

  it('ends the refresh tokens the session began when the person signs out, but not offline ones', async () => {
    const configuration = await confidentialParty();
    const first = await signIn(configuration);
    const online = await exchange(configuration, first);
    // The same session's next code, this time with offline_access.
    const offlineCode = await signIn(configuration, {
      browser: first.browser,
      extra: { prompt: 'none', scope: 'openid offline_access' },
    });
    const offline = await exchange(configuration, offlineCode);
    // Positive control: both refresh while the session lives (each rotation keeps its family).
    const onlineRefreshed = await oidc.refreshTokenGrant(configuration, online.refresh_token as string);
    const offlineRefreshed = await oidc.refreshTokenGrant(configuration, offline.refresh_token as string);
    // A code of the session not exchanged yet when the person signs out starts nothing.
    const pending = await signIn(configuration, { browser: first.browser, extra: { prompt: 'none' } });
    const signedOut = await first.browser.fetch(
      oidc.buildEndSessionUrl(configuration, { id_token_hint: online.id_token as string }).href,
    );
    expect(signedOut.status).toBe(200);
    await expect(
      oidc.refreshTokenGrant(configuration, onlineRefreshed.refresh_token as string),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(
      (await oidc.refreshTokenGrant(configuration, offlineRefreshed.refresh_token as string)).access_token,
    ).toBeTruthy();
    await expect(exchange(configuration, pending)).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description:
        'The browser session of this code has ended (signed out, replaced by another sign-in, or expired)',
    });
  });

  const logoutUrl = (parameters: Record<string, string> = {}) =>
    `${service.baseUrl}/oauth2/logout?${new URLSearchParams(parameters)}`;
  /** Whether the browser's session still signs in silently (prompt=none gets a code). */
  const signedIn = async (configuration: oidc.Configuration, browser: BrowserSession) =>
    Boolean(
      (await signIn(configuration, { browser, extra: { prompt: 'none' } })).location?.searchParams.get(
        'code',
      ),
    );
  /** The confirmation page of a logout request: its CSRF token and every field it posts back. */
  const confirmationOf = async (response: Response) => {
    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    const page = await response.text();
    expect(page).toContain('<h1>Sign out?</h1>');
    expect(page).toContain('<form method="post" action="/oauth2/logout">');
    const fields = Object.fromEntries(
      [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
        match[1] as string,
        match[2] as string,
      ]),
    );
    expect(fields.csrf).toBeTruthy();
    return fields;
  };
  const confirm = (browser: BrowserSession, fields: Record<string, string>) =>
    browser.submit(`${service.baseUrl}/oauth2/logout`, fields);

  it("ends a session's refresh tokens through the confirmation page, with a replaced session's, but not another browser's", async () => {
    const configuration = await confidentialParty();
    const refreshes = async (token: string | undefined) =>
      oidc.refreshTokenGrant(configuration, token as string).then(
        (answer) => answer.refresh_token as string,
        () => undefined,
      );
    const first = await signIn(configuration);
    let before = (await exchange(configuration, first)).refresh_token;
    // The same person signs in again in this browser (prompt=login): a new session takes over.
    const again = await signIn(configuration, { browser: first.browser, extra: { prompt: 'login' } });
    let after = (await exchange(configuration, again)).refresh_token;
    // The same person in another browser: a session of its own.
    const elsewhere = await signIn(configuration);
    let kept = (await exchange(configuration, elsewhere)).refresh_token;
    // Positive control: all three refresh while their sessions live.
    before = await refreshes(before);
    after = await refreshes(after);
    kept = await refreshes(kept);
    expect([before, after, kept].every(Boolean)).toBe(true);
    // Signing out through the confirmation page (no hint): this browser's tokens end, old and new.
    expect(
      (await confirm(first.browser, await confirmationOf(await first.browser.fetch(logoutUrl())))).status,
    ).toBe(200);
    expect(await refreshes(before)).toBeUndefined();
    expect(await refreshes(after)).toBeUndefined();
    expect(await refreshes(kept)).toBeTruthy();
  });

  it("ends the first person's refresh tokens when another person signs in in the same browser", async () => {
    const configuration = await confidentialParty();
    const first = await signIn(configuration);
    const theirs = (await exchange(configuration, first)).refresh_token as string;
    // Positive control: it refreshes while their session lives.
    const rotated = (await oidc.refreshTokenGrant(configuration, theirs)).refresh_token as string;
    const otherPerson = await signIn(configuration, {
      browser: first.browser,
      email: other.email,
      extra: { prompt: 'login' },
    });
    expect(otherPerson.location?.searchParams.get('code')).toBeTruthy();
    await expect(oidc.refreshTokenGrant(configuration, rotated)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('reuses the session only as the person an id_token_hint names, and refuses a hint not ours', async () => {
    const configuration = await confidentialParty();
    const first = await signIn(configuration);
    const hint = (await exchange(configuration, first)).id_token as string;
    const silently = (extra: Record<string, string>) =>
      signIn(configuration, { browser: first.browser, extra: { prompt: 'none', ...extra } });
    // Positive control: the hint names the session's person, so a code comes at once.
    expect((await silently({ id_token_hint: hint })).location?.searchParams.get('code')).toBeTruthy();
    // Someone else signs in on this browser; the application then renews silently with its hint.
    const switched = await signIn(configuration, {
      browser: first.browser,
      email: other.email,
      extra: { prompt: 'login' },
    });
    expect((await exchange(configuration, switched)).claims()?.sub).toBe(other.id);
    expect((await silently({})).location?.searchParams.get('code')).toBeTruthy();
    const renewed = await silently({ id_token_hint: hint });
    expect(renewed.location?.searchParams.get('error')).toBe('login_required');
    expect(renewed.location?.searchParams.get('code')).toBeNull();
    const forged = await silently({ id_token_hint: `${hint.slice(0, -4)}AAAA` });
    expect(forged.location?.searchParams.get('error')).toBe('invalid_request');
  });

  it('lets only the person an id_token_hint names finish a sign-in the hint started (login_required otherwise)', async () => {
    const configuration = await confidentialParty();
    const hint = (await exchange(configuration, await signIn(configuration))).id_token as string;
    // Positive control: in a fresh browser, the person the hint names signs in and gets a code.
    const named = await signIn(configuration, {
      browser: new BrowserSession(),
      extra: { id_token_hint: hint },
    });
    expect((await exchange(configuration, named)).claims()?.sub).toBe(person.id);
    // Someone else signs in on the request: back to the application without a code.
    const someoneElse = await signIn(configuration, {
      browser: new BrowserSession(),
      email: other.email,
      extra: { id_token_hint: hint },
    });
    expect(someoneElse.location?.searchParams.get('code')).toBeNull();
    expect(someoneElse.location?.searchParams.get('error')).toBe('login_required');
  });

  it('takes an ID token of ours expired for longer than a session lives as a hint, not as a foreign token', async () => {
    const configuration = await confidentialParty();
    const first = await signIn(configuration);
    const hint = (await exchange(configuration, first)).id_token as string;
    const claims = decodeJwt(hint);
    // The same ID token as if issued 13 hours ago: older than any session (12 hours at most).
    const shift = 13 * 3600;
    const old = signJws(
      await currentSigningKey(),
      { typ: 'JWT' },
      { ...claims, iat: (claims.iat as number) - shift, exp: (claims.exp as number) - shift },
    );
    const silently = (idTokenHint: string) =>
      signIn(configuration, {
        browser: first.browser,
        extra: { prompt: 'none', id_token_hint: idTokenHint },
      });
    // Positive control: the fresh hint renews silently; the old one names the same person, so it does too.
    expect((await silently(hint)).location?.searchParams.get('code')).toBeTruthy();
    const renewed = await silently(old);
    expect(renewed.location?.searchParams.get('error')).toBeNull();
    expect(renewed.location?.searchParams.get('code')).toBeTruthy();
  });

  it('answers prompt=consent from the session, and prompt=select_account with the sign-in page', async () => {
    const configuration = await confidentialParty();
    expect(configuration.serverMetadata().prompt_values_supported).toEqual([
      'none',
      'login',
      'consent',
      'select_account',
    ]);
    const { browser } = await signIn(configuration);
    // Positive control: the session answers a request with no prompt at once.
    const reused = await signIn(configuration, { browser });
    expect((await exchange(configuration, reused)).claims()?.sub).toBe(person.id);
    // consent, as a relying party asking for offline_access sends it (OpenID Connect Core 11):
    // the organization registered the application, so there is nothing more to ask.
    const consented = await signIn(configuration, {
      browser,
      extra: { prompt: 'consent', scope: 'openid offline_access' },
    });
    const offline = await exchange(configuration, consented);
    expect(offline.refresh_token).toBeTruthy();
    // select_account: the sign-in page, where this browser may sign in as someone else.
    const switched = await signIn(configuration, {
      browser,
      email: other.email,
      extra: { prompt: 'select_account' },
    });
    expect((await exchange(configuration, switched)).claims()?.sub).toBe(other.id);
  });

  it('asks before signing out without an ID token hint, and signs out on the confirmation of this session', async () => {
    const configuration = await confidentialParty();
    const { browser } = await signIn(configuration);
    const fields = await confirmationOf(await browser.fetch(logoutUrl()));
    expect(await signedIn(configuration, browser)).toBe(true);

    const signedOut = await confirm(browser, fields);
    expect(signedOut.status).toBe(200);
    expect(await signedOut.text()).toContain('<h1>Signed out</h1>');
    expect(await signedIn(configuration, browser)).toBe(false);
  });

  it("refuses a confirmation without the person's session, or with another session's token", async () => {
    const configuration = await confidentialParty();
    const victim = (await signIn(configuration)).browser;
    // The attacker's own session, and the token of its own confirmation page.
    const attacker = (await signIn(configuration)).browser;
    const attackerFields = await confirmationOf(await attacker.fetch(logoutUrl()));

    // Sent from the attacker's site: the victim's browser does not send its cookie along.
    const withoutCookie = await confirm(new BrowserSession(), attackerFields);
    expect(withoutCookie.status).toBe(403);
    expect(await withoutCookie.text()).toContain('This sign-out form could not be verified');
    // The victim's cookie with the attacker's token.
    const foreignToken = await confirm(victim, attackerFields);
    expect(foreignToken.status).toBe(403);
    expect(await signedIn(configuration, victim)).toBe(true);

    // The same form from the attacker's own browser signs the attacker out (positive control).
    expect((await confirm(attacker, attackerFields)).status).toBe(200);
    expect(await signedIn(configuration, attacker)).toBe(false);
    expect(await signedIn(configuration, victim)).toBe(true);
  });

  it("asks, rather than signing out, for another person's ID token hint", async () => {
    const configuration = await confidentialParty();
    const mine = await signIn(configuration);
    const someoneElse = await signInAs(service, configuration, { email: other.email });
    const theirToken = (await exchange(configuration, someoneElse)).id_token as string;

    const fields = await confirmationOf(
      await mine.browser.fetch(
        logoutUrl({ id_token_hint: theirToken, post_logout_redirect_uri: AFTER_LOGOUT, state: 'bye' }),
      ),
    );
    expect(await signedIn(configuration, mine.browser)).toBe(true);
    expect(await signedIn(configuration, someoneElse.browser)).toBe(true);
    // Confirmed: this session ends, and the hint (valid, its application registered the URI) sends the browser back.
    const confirmed = await confirm(mine.browser, fields);
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${AFTER_LOGOUT}?state=bye`);
    expect(await signedIn(configuration, mine.browser)).toBe(false);
    expect(await signedIn(configuration, someoneElse.browser)).toBe(true);
  });

  it('signs out at once for an expired ID token hint of the session', async () => {
    const configuration = await confidentialParty();
    const flow = await signIn(configuration);
    const idToken = (await exchange(configuration, flow)).id_token as string;
    const issuedAt = Math.floor(Date.now() / 1000) - 3600;
    const expired = signJws(
      await currentSigningKey('RS256'),
      { typ: 'JWT' },
      { ...decodeJwt(idToken), iat: issuedAt, exp: issuedAt + 900 },
    );
    const signedOut = await flow.browser.fetch(
      logoutUrl({ id_token_hint: expired, post_logout_redirect_uri: AFTER_LOGOUT }),
    );
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe(AFTER_LOGOUT);
    expect(await signedIn(configuration, flow.browser)).toBe(false);
  });

  it('ends the sessions and refresh tokens of a deactivated person for good: reactivating brings none back', async () => {
    const email = uniqueEmail('deactivated');
    const id = await service.createUser({ email, name: 'Deactivated Person' });
    await updateUserAttributes(service.organizationId, id, { passwordHash });
    const configuration = await confidentialParty();
    const flow = await signIn(configuration, { email });
    const tokens = await exchange(configuration, flow);
    // Positive controls: the session signs in silently, the refresh token refreshes.
    expect(await signedIn(configuration, flow.browser)).toBe(true);
    const refreshed = await oidc.refreshTokenGrant(configuration, tokens.refresh_token as string);

    await setUserStatus(service.organizationId, id, 'INACTIVE');
    await setUserStatus(service.organizationId, id, 'ACTIVE');
    expect(await signedIn(configuration, flow.browser)).toBe(false);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: refreshed.refresh_token as string,
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    // The person signs in again with their password.
    expect((await signIn(configuration, { email })).location?.searchParams.get('code')).toBeTruthy();
  });

  it("sends the browser after logout only to a URI the hint's own application registered", async () => {
    const OTHER_AFTER_LOGOUT = 'http://127.0.0.1:4999/other-signed-out';
    const registered = await register({
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      postLogoutRedirectUris: [OTHER_AFTER_LOGOUT],
    });
    const otherApp = registered.body;
    const [configuration, otherConfiguration] = await Promise.all([
      confidentialParty(),
      configurationOf(otherApp, oidc.ClientSecretBasic(otherApp.clientSecret)),
    ]);
    /** A browser signed in once, to both applications (the second silently), and each one's ID token. */
    const signedInToBoth = async () => {
      const first = await signIn(configuration);
      const second = await signIn(otherConfiguration, { browser: first.browser, extra: { prompt: 'none' } });
      const [mine, theirs] = await Promise.all([
        exchange(configuration, first),
        exchange(otherConfiguration, second),
      ]);
      return { browser: first.browser, hint: mine.id_token as string, otherHint: theirs.id_token as string };
    };
    const expectRedirect = async (response: Response, location: string) => {
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(location);
    };

    // Positive controls: a hint with its own application's URI (and client_id) sends the browser there.
    const control = await signedInToBoth();
    await expectRedirect(
      await control.browser.fetch(
        logoutUrl({
          id_token_hint: control.hint,
          client_id: confidential.id,
          post_logout_redirect_uri: AFTER_LOGOUT,
          state: 'bye',
        }),
      ),
      `${AFTER_LOGOUT}?state=bye`,
    );
    await expectRedirect(
      await control.browser.fetch(
        logoutUrl({
          id_token_hint: control.otherHint,
          client_id: otherApp.id,
          post_logout_redirect_uri: OTHER_AFTER_LOGOUT,
        }),
      ),
      OTHER_AFTER_LOGOUT,
    );

    // The attacks, each against a live session and with its own valid hints: a 400 page, no redirect.
    const { browser, hint, otherHint } = await signedInToBoth();
    const refusals: [string, Record<string, string>, string][] = [
      [
        "another application's URI",
        { id_token_hint: hint, post_logout_redirect_uri: OTHER_AFTER_LOGOUT },
        'The post-logout redirect URI is not registered for this application.',
      ],
      [
        'a hint issued to another client_id',
        {
          id_token_hint: otherHint,
          client_id: confidential.id,
          post_logout_redirect_uri: OTHER_AFTER_LOGOUT,
        },
        'client_id does not match the application of the id_token_hint.',
      ],
    ];
    for (const [attack, parameters, message] of refusals) {
      const refused = await browser.fetch(logoutUrl({ ...parameters, state: 'bye' }));
      expect(refused.status, attack).toBe(400);
      expect(refused.headers.get('location'), attack).toBeNull();
      expect(await refused.text(), attack).toContain(message);
    }
    expect(await signedIn(configuration, browser)).toBe(true);

    // No hint: the person is asked, and signed out on confirming, but never sent to the URI, even
    // one the named client_id registered.
    const unhinted = { post_logout_redirect_uri: AFTER_LOGOUT, client_id: confidential.id, state: 'bye' };
    const fields = await confirmationOf(await browser.fetch(logoutUrl(unhinted)));
    const confirmed = await confirm(browser, fields);
    expect(confirmed.status).toBe(200);
    expect(confirmed.headers.get('location')).toBeNull();
    expect(await confirmed.text()).toContain('<h1>Signed out</h1>');
    expect(await signedIn(configuration, browser)).toBe(false);
    // Without a session: the signed-out page, still no redirect.
    const noSession = await browser.fetch(logoutUrl(unhinted));
    expect(noSession.status).toBe(200);
    expect(noSession.headers.get('location')).toBeNull();
    expect(await noSession.text()).toContain('<h1>Signed out</h1>');
  });

  it('revokes a refresh token (RFC 7009) and answers 200 for anything unknown', async () => {
    const configuration = await confidentialParty();
    const tokens = await exchange(configuration, await signIn(configuration));
    await oidc.tokenRevocation(configuration, tokens.refresh_token as string);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
    });
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    await expect(oidc.tokenRevocation(configuration, 'not-a-token')).resolves.toBeUndefined();
    // An access token is not revoked: the client hears so (RFC 7009 2.2.1) rather than a 200.
    await expect(
      oidc.tokenRevocation(configuration, tokens.access_token, { token_type_hint: 'access_token' }),
    ).rejects.toMatchObject({ error: 'unsupported_token_type' });
    const forged = `${tokens.access_token.slice(0, -4)}AAAA`;
    await expect(oidc.tokenRevocation(configuration, forged)).resolves.toBeUndefined();

    // RFC 7009 section 2.1: a wrong token_type_hint is only a wrong guess; the token is revoked.
    const second = await exchange(configuration, await signIn(configuration));
    await oidc.tokenRevocation(configuration, second.refresh_token as string, {
      token_type_hint: 'access_token',
    });
    const afterWrongHint = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token as string,
    });
    expect(await afterWrongHint.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it("refuses to revoke another application's refresh token, and leaves it alive (RFC 7009 2.1)", async () => {
    const configuration = await confidentialParty();
    const tokens = await exchange(configuration, await signIn(configuration));
    const revokeAs = (application: Application) =>
      fetch(`${service.baseUrl}/oauth2/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.refresh_token as string, client_id: application.id }),
      });
    // The public application authenticates by its id alone: as good a client as any to attempt it.
    const refused = await revokeAs(publicApp);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized_client' });
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
    });
    expect(refreshed.status).toBe(200);
    // Positive control: the token's own application revokes its successor the same way (Basic).
    const successor = ((await refreshed.json()) as { refresh_token: string }).refresh_token;
    await oidc.tokenRevocation(configuration, successor);
    const afterRevocation = await tokenRequest({ grant_type: 'refresh_token', refresh_token: successor });
    expect(await afterRevocation.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers userinfo only for a valid user access token', async () => {
    const noToken = await fetch(`${service.baseUrl}/oauth2/userinfo`);
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe('Bearer realm="idp"');
    const clientToken = await fetch(`${service.baseUrl}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${service.admin.token}` },
    });
    expect(clientToken.status).toBe(401);
    expect(clientToken.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it("answers userinfo for an OpenID Connect sign-in's token, not one a refresh narrowed without openid", async () => {
    const configuration = await confidentialParty();
    const tokens = await exchange(
      configuration,
      await signIn(configuration, { extra: { scope: 'openid email' } }),
    );
    const userinfo = (accessToken: string) =>
      fetch(`${service.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
    // Positive control: the sign-in's own token.
    expect(await (await userinfo(tokens.access_token)).json()).toMatchObject({
      sub: person.id,
      email: person.email,
    });
    const narrowed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      scope: 'email',
    });
    const oauthOnly = (await narrowed.json()) as { access_token: string; scope: string };
    expect(oauthOnly.scope).toBe('email');
    const refused = await userinfo(oauthOnly.access_token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      'Bearer realm="idp", error="insufficient_scope", scope="openid"',
    );
  });
});

describe('brute force', () => {
  it('locks an email after 5 failures, answering exactly like a wrong password, and only that email', async () => {
    const configuration = await confidentialParty();
    const email = uniqueEmail('locked');
    const id = await service.createUser({ email, name: 'Locked Person' });
    await updateUserAttributes(service.organizationId, id, { passwordHash });
    const answers: { status?: number; error?: string }[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await signIn(configuration, { email, password: `wrong password ${attempt}` });
      answers.push({
        status: refused.answer?.status,
        error: /class="error"[^>]*>([^<]*)/.exec((await refused.answer?.text()) ?? '')?.[1],
      });
    }
    const locked = await signIn(configuration, { email });
    expect(locked.location).toBeUndefined();
    const lockedAnswer = {
      status: locked.answer?.status,
      error: /class="error"[^>]*>([^<]*)/.exec((await locked.answer?.text()) ?? '')?.[1],
    };
    expect(answers).toEqual(Array(5).fill(lockedAnswer));
    expect(lockedAnswer).toEqual({ status: 401, error: 'The email or password is not right.' });
    // The fifth failure locked the email; the right password then failed as locked.
    expect(
      (await signInTrail(service.organizationId, id)).map((record) => `${record.action} ${record.reason}`),
    ).toEqual([
      ...Array(4).fill('signin.failed wrong password'),
      'signin.locked wrong password',
      'signin.failed locked',
    ]);
    // Unknown emails are counted and answered alike; the person signed in above is unaffected.
    const unknown = await signIn(configuration, { email: uniqueEmail('nobody') });
    expect(unknown.answer?.status).toBe(401);
    expect((await signIn(configuration)).location?.searchParams.get('code')).toBeTruthy();
  });
});
