import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTrail } from '../support/audit.js';
import { BrowserSession, hiddenField } from '../support/browser-session.js';
import { useService } from '../support/service.js';
import {
  type Application,
  authorizationParameters,
  authorizationRequest,
  newApplication,
  PASSWORD,
  personWithPassword,
  REDIRECT,
  registerApplication,
  relyingParty,
} from '../support/sign-in-flow.js';

/**
 * Pushed authorization requests (RFC 9126) with openid-client as the application: the request is
 * posted, authenticated, and the browser carries only `client_id` and a `request_uri`, which
 * works once, for its own client, with the parameters pushed and no others.
 */
const service = useService();

let application: Application;
let rp: oidc.Configuration;
let person: { id: string; email: string };

beforeAll(async () => {
  application = await newApplication(service);
  rp = await relyingParty(service, application, oidc.ClientSecretBasic(application.clientSecret));
  person = await personWithPassword(service, 'pushed');
});

/** Pushes a fresh request of `configuration` (PKCE, state, nonce): the URL the browser opens. */
const pushed = async (configuration = rp, extra: Record<string, string> = {}) => {
  const { parameters, ...values } = await authorizationParameters(REDIRECT, extra);
  return { url: await oidc.buildAuthorizationUrlWithPAR(configuration, parameters), ...values };
};

/** Opens the URL in a new browser and signs in with the password: answers where it was sent. */
const signInAt = async (url: URL) => {
  const browser = new BrowserSession();
  const page = await browser.fetch(url.href);
  if (page.status !== 200) return { status: page.status, page: await page.text() };
  const answer = await browser.submit(`${service.baseUrl}/signin`, {
    request: hiddenField(await page.text(), 'request') ?? '',
    email: person.email,
    password: PASSWORD,
  });
  return { status: answer.status, location: new URL(answer.headers.get('location') ?? '', service.baseUrl) };
};

/** Posts a request to the PAR endpoint, the application authenticated by Basic unless `basic` is null. */
const push = (
  body: Record<string, string>,
  basic: { id: string; secret: string } | null = {
    id: application.id,
    secret: application.clientSecret,
  },
) =>
  fetch(`${service.baseUrl}/oauth2/par`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic
        ? { authorization: `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}` }
        : {}),
    },
    body: new URLSearchParams(body),
  });

describe('pushed authorization requests', () => {
  it('signs a person in through a pushed request: the browser carries only client_id and request_uri', async () => {
    const discovered = rp.serverMetadata();
    expect(discovered.pushed_authorization_request_endpoint).toBe(`${service.baseUrl}/oauth2/par`);
    const request = await pushed();
    expect([...request.url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const signedIn = await signInAt(request.url);
    expect(signedIn.location?.href.startsWith(REDIRECT)).toBe(true);
    const tokens = await oidc.authorizationCodeGrant(rp, signedIn.location as URL, {
      pkceCodeVerifier: request.verifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    });
    expect(tokens.claims()?.sub).toBe(person.id);
  });

  it('takes a request_uri once', async () => {
    const request = await pushed();
    expect((await signInAt(request.url)).location?.href.startsWith(REDIRECT)).toBe(true);
    const again = await signInAt(request.url);
    expect(again.status).toBe(400);
    expect(again.page).toContain('This sign-in request is unknown, was used already or has expired');
  });

  it('takes a request_uri only for the client that pushed it, and leaves it to that client', async () => {
    const other = await service.freshOrganization({ name: 'Elsewhere' });
    const stranger = await newApplication(service, other);
    const request = await pushed();
    const misused = new URL(request.url);
    misused.searchParams.set('client_id', stranger.id);
    const refused = await signInAt(misused);
    expect(refused.status).toBe(400);
    expect(refused.page).toContain('This sign-in request is unknown, was used already or has expired');
    // The request is still there for its own client.
    expect((await signInAt(request.url)).location?.href.startsWith(REDIRECT)).toBe(true);
  });

  it('takes a pushed request at POST /oauth2/authorize too', async () => {
    const request = await pushed();
    const browser = new BrowserSession();
    const posted = await browser.submit(`${service.baseUrl}/oauth2/authorize`, {
      client_id: application.id,
      request_uri: request.url.searchParams.get('request_uri') ?? '',
    });
    // On as a GET naming the same request_uri.
    expect(posted.status).toBe(303);
    const page = await browser.fetch(new URL(posted.headers.get('location') ?? '', service.baseUrl).href);
    expect(page.status).toBe(200);
    expect(hiddenField(await page.text(), 'request')).toBeDefined();
  });

  it('honours prompt=none pushed, and not one sent beside the request_uri', async () => {
    const silent = await pushed(rp, { prompt: 'none' });
    const refused = await new BrowserSession().fetch(silent.url.href);
    const back = new URL(refused.headers.get('location') ?? '');
    expect([back.searchParams.get('error'), back.searchParams.get('state')]).toEqual([
      'login_required',
      silent.state,
    ]);
    // Positive control above; now prompt=none beside a request pushed without it: the sign-in page.
    const plain = await pushed();
    const added = new URL(plain.url);
    added.searchParams.set('prompt', 'none');
    const page = await new BrowserSession().fetch(added.href);
    expect(page.status).toBe(200);
  });

  it('takes only the pushed parameters, not those sent beside the request_uri', async () => {
    const request = await pushed();
    const added = new URL(request.url);
    added.searchParams.set('redirect_uri', 'https://attacker.example/callback');
    added.searchParams.set('state', 'changed');
    const signedIn = await signInAt(added);
    expect(signedIn.location?.href.startsWith(REDIRECT)).toBe(true);
    expect(signedIn.location?.searchParams.get('state')).toBe(request.state);
  });
});

describe('an application that must push its requests (RFC 9126 section 6)', () => {
  let pushing: Application;
  let pushingRp: oidc.Configuration;
  beforeAll(async () => {
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      requirePushedAuthorizationRequests: true,
    });
    expect(registered.status).toBe(201);
    pushing = registered.body;
    pushingRp = await relyingParty(service, pushing, oidc.ClientSecretBasic(pushing.clientSecret));
  });

  const details = async (id: string) =>
    (
      await service.call<{ requirePushedAuthorizationRequests?: boolean }>('GET', `/idp/clients/${id}`, {
        token: service.admin.token,
      })
    ).body.requirePushedAuthorizationRequests;
  const change = (id: string, body: Record<string, unknown>) =>
    service.call('PATCH', `/idp/clients/${id}`, { token: service.admin.token, body });
  /** Where a request sent straight from the browser (not pushed) of `configuration` ends. */
  const straight = async (configuration: oidc.Configuration) => {
    const request = await authorizationRequest(configuration, REDIRECT);
    const answer = await new BrowserSession().fetch(request.url.href);
    return { status: answer.status, location: answer.headers.get('location'), state: request.state };
  };

  it('is registered and shown so; an application by default need not push', async () => {
    expect(await details(pushing.id)).toBe(true);
    expect(await details(application.id)).toBe(false);
  });

  it('signs in through a pushed request, and sends a request sent straight back with invalid_request', async () => {
    const request = await pushed(pushingRp);
    expect((await signInAt(request.url)).location?.href.startsWith(REDIRECT)).toBe(true);
    // Positive control: the same request sent straight by an application that need not push.
    expect((await straight(rp)).status).toBe(200);
    const refused = await straight(pushingRp);
    expect(refused.status).toBe(303);
    const back = new URL(refused.location ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect([
      back.searchParams.get('error'),
      back.searchParams.get('error_description'),
      back.searchParams.get('state'),
    ]).toEqual([
      'invalid_request',
      'This application must push its authorization requests (PAR, RFC 9126)',
      refused.state,
    ]);
  });

  it('is changed with PATCH /idp/clients/{id}, recorded, and applies from the next request', async () => {
    const since = Date.now();
    expect((await change(pushing.id, { requirePushedAuthorizationRequests: false })).status).toBe(200);
    expect(await details(pushing.id)).toBe(false);
    expect((await straight(pushingRp)).status).toBe(200);
    expect((await change(pushing.id, { requirePushedAuthorizationRequests: true })).status).toBe(200);
    expect((await straight(pushingRp)).status).toBe(303);
    const records = await auditTrail(service.organizationId, {
      action: 'client.updated',
      targetId: pushing.id,
      since,
    });
    expect(records.map((record) => record.changes?.requirePushedAuthorizationRequests)).toEqual([
      { from: true, to: false },
      { from: false, to: true },
    ]);
  });

  it('refuses every other way of sending a request straight: a form post, another request_uri, prompt=none', async () => {
    const { parameters } = await authorizationParameters(REDIRECT, { state: 'st' });
    // A post is no pushed request: refused at once, as the GET would be.
    const formPost = await new BrowserSession().submit(`${service.baseUrl}/oauth2/authorize`, {
      client_id: pushing.id,
      response_type: 'code',
      ...parameters,
    });
    const refusedWith = (answer: Response) => {
      const back = new URL(answer.headers.get('location') ?? '', service.baseUrl);
      return [answer.status, back.searchParams.get('error'), back.searchParams.get('error_description')];
    };
    const mustPush = [
      303,
      'invalid_request',
      'This application must push its authorization requests (PAR, RFC 9126)',
    ];
    expect(refusedWith(formPost)).toEqual(mustPush);
    const straightUrl = (await authorizationRequest(pushingRp, REDIRECT)).url;
    const otherUri = new URL(straightUrl);
    otherUri.searchParams.set('request_uri', 'https://app.example/request.jwt');
    expect(refusedWith(await new BrowserSession().fetch(otherUri.href))).toEqual(mustPush);
    const silent = (await authorizationRequest(pushingRp, REDIRECT, { prompt: 'none' })).url;
    expect(refusedWith(await new BrowserSession().fetch(silent.href))).toEqual(mustPush);
    // Pushed, the silent request is answered as any: login_required without a session.
    const pushedSilent = await pushed(pushingRp, { prompt: 'none' });
    expect(refusedWith(await new BrowserSession().fetch(pushedSilent.url.href))).toEqual([
      303,
      'login_required',
      'The person is not signed in',
    ]);
  });

  it('holds for a public application: pushed with its client_id alone, refused sent straight', async () => {
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'none',
      requirePushedAuthorizationRequests: true,
    });
    expect(registered.status).toBe(201);
    const publicRp = await relyingParty(service, registered.body, oidc.None());
    const request = await pushed(publicRp);
    expect((await signInAt(request.url)).location?.href.startsWith(REDIRECT)).toBe(true);
    expect((await straight(publicRp)).status).toBe(303);
  });

  it('records nothing of it when an application registered without it is set to false', async () => {
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
    });
    // Registered without it, its item holds none (it is stored only when true).
    const since = Date.now();
    expect((await change(registered.body.id, { requirePushedAuthorizationRequests: false })).status).toBe(
      200,
    );
    expect(await details(registered.body.id)).toBe(false);
    const [record] = await auditTrail(service.organizationId, {
      action: 'client.updated',
      targetId: registered.body.id,
      since,
    });
    expect(record?.changes).not.toHaveProperty('requirePushedAuthorizationRequests');
  });

  it('is for applications only: an API client given it is refused with 400, at registration and in a change', async () => {
    const apiClient = await service.call<{ id: string }>('POST', '/idp/clients', {
      token: service.admin.token,
      body: { name: 'Machine', clientType: 'STANDARD' },
    });
    expect(apiClient.status).toBe(201);
    const registered = await service.call('POST', '/idp/clients', {
      token: service.admin.token,
      body: { name: 'Machine', clientType: 'STANDARD', requirePushedAuthorizationRequests: true },
    });
    expect(registered.status).toBe(400);
    expect(JSON.stringify(registered.body)).toContain('requirePushedAuthorizationRequests');
    // Positive control: a field of its own kind is changed.
    expect((await change(apiClient.body.id, { remoteAddresses: ['203.0.113.0/24'] })).status).toBe(200);
    for (const value of [true, false]) {
      const changed = await change(apiClient.body.id, { requirePushedAuthorizationRequests: value });
      expect(changed.status).toBe(400);
      expect(JSON.stringify(changed.body)).toContain('requirePushedAuthorizationRequests');
    }
  });
});

describe('what the pushed authorization request endpoint refuses (JSON, never a redirect)', () => {
  const valid = () => ({
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });

  it('stores a valid request (the positive control), and refuses a wrong secret with 401', async () => {
    const accepted = await push(valid());
    expect(accepted.status).toBe(201);
    expect(await accepted.json()).toEqual({
      request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
      expires_in: 60,
    });
    const refused = await push(valid(), { id: application.id, secret: `${application.clientSecret}x` });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
  });

  it.each([
    ['an unregistered redirect URI', { redirect_uri: 'https://attacker.example/cb' }, 'invalid_request'],
    ['no PKCE', { code_challenge: '' }, 'invalid_request'],
    ['a request_uri of its own', { request_uri: 'urn:ietf:params:oauth:request_uri:x' }, 'invalid_request'],
    ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['a request object', { request: 'eyJhbGciOiJub25lIn0.e30.' }, 'request_not_supported'],
  ])('refuses %s', async (_case, change: Record<string, string>, error) => {
    const response = await push({ ...valid(), ...change });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.json()).toMatchObject({ error });
  });
  it('refuses a body over 64 KiB (413, before the client is known) and a state over 4,096 characters (recorded)', async () => {
    const since = Date.now();
    const large = await push({ ...valid(), state: 's'.repeat(65 * 1024) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({
      error: 'invalid_request',
      error_description: 'The request body is larger than 64 KiB',
    });
    const long = await push({ ...valid(), state: 's'.repeat(4097) });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: 'invalid_request' });
    expect((await push({ ...valid(), state: 's'.repeat(4096) })).status).toBe(201);
    const records = await auditTrail(service.organizationId, {
      action: 'token.refused',
      actorId: application.id,
      since,
    });
    expect(records.map((record) => record.reason)).toEqual([
      'invalid_request: state is longer than 4096 characters',
    ]);
  });

  it('authenticates as the token endpoint does: a public application by its id, a confidential one by its registered method', async () => {
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'none',
    });
    expect((await push({ ...valid(), client_id: registered.body.id }, null)).status).toBe(201);
    // Without a secret, or with it in the form when it registered Basic: refused.
    const bare = await push({ ...valid(), client_id: application.id }, null);
    expect([bare.status, ((await bare.json()) as { error: string }).error]).toEqual([401, 'invalid_client']);
    const posted = await push(
      { ...valid(), client_id: application.id, client_secret: application.clientSecret },
      null,
    );
    expect([posted.status, ((await posted.json()) as { error: string }).error]).toEqual([
      401,
      'invalid_client',
    ]);
  });
});
