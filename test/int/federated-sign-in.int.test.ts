import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { authorize } from '../../shared/auth/browser-sign-in.js';
import { finishFederation, startFederation } from '../../shared/auth/federation/federated-sign-in.js';
import {
  authorizationUrl,
  discover,
  FederationError,
  type UpstreamIdentity,
  upstreamIdentity,
} from '../../shared/auth/federation/upstream.js';
import { UPSTREAM_BUDGET_MILLIS } from '../../shared/auth/federation/upstream-http.js';
import { secretStore, ssoSecretName } from '../../shared/auth/secret-store.js';
import { submitContinue, submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { logger } from '../../shared/http/logger.js';
import { countMetric } from '../../shared/observability/metrics.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import { liveSession, redeemAuthorizationCode } from '../../shared/store/sign-in-state.js';
import { configureSsoProvider, getSsoProvider } from '../../shared/store/sso-provider-repository.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  CHALLENGE,
  locationOf,
  PagesBrowser,
  pendingTotpSecret,
  personWithPassword,
  REDIRECT,
  requestIdOf,
  signInSetup,
  totpCodeAt,
  uniqueDomain,
} from '../support/hosted-pages.js';
import { getItem } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * Sign-in through an SSO provider (shared/auth/federation/federated-sign-in.ts and the federation
 * state): which browser may start one, which answer may finish it. The upstream's protocol
 * (discovery, the code exchange and the ID token's validation) is upstream.ts's, tested on its
 * own (test/unit/upstream-id-tokens.unit.test.ts): here it is stubbed, and asked for exactly what
 * the sign-in holds.
 */

vi.mock('../../shared/auth/federation/upstream.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/auth/federation/upstream.js')>()),
  discover: vi.fn(),
  authorizationUrl: vi.fn(),
  upstreamIdentity: vi.fn(),
}));

vi.mock('../../shared/observability/metrics.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/observability/metrics.js')>()),
  countMetric: vi.fn(),
}));

useDatabase();

const ISSUER = 'https://upstream.example';
const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';
const NOT_OFFERED =
  'This sign-in option is not available here. Go back to the application and sign in again.';

let shared: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  shared = await signInSetup();
});

beforeEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  vi.mocked(countMetric).mockClear();
  vi.mocked(discover).mockReset().mockResolvedValue({ issuer: ISSUER });
  vi.mocked(authorizationUrl)
    .mockReset()
    .mockImplementation(async (_issuer, client, parameters) => {
      const url = new URL(`${ISSUER}/authorize`);
      for (const [name, value] of Object.entries({ ...client, ...parameters })) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      return url;
    });
  vi.mocked(upstreamIdentity).mockReset();
});

/** A provider of the shared organization, with its own client id. */
const newProvider = async (settings: Partial<Parameters<typeof configureSsoProvider>[0]> = {}) => {
  const clientId = `sso-${randomUUID().slice(0, 8)}`;
  await configureSsoProvider(
    {
      clientId,
      organizationIds: [shared.organization.id],
      clientSecret: 'upstream secret',
      issuer: ISSUER,
      ...settings,
    },
    'test',
  );
  return clientId;
};

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/**
 * A provider of the shared organization serving a domain of its own (a provider vouches only for
 * addresses of its domains), and a person of that domain.
 */
const vouchingProvider = async (settings: Partial<Parameters<typeof configureSsoProvider>[0]> = {}) => {
  const domain = uniqueDomain();
  const user = await personWithPassword(shared.organization.id, undefined, `person@${domain}`);
  return { provider: await newProvider({ emailDomains: [domain], ...settings }), user };
};

/** The identity of the shared person as the upstream vouches for it. */
const person = (change: Partial<UpstreamIdentity> = {}): UpstreamIdentity => ({
  issuer: 'https://upstream.example',
  subject: 'upstream-subject',
  email: shared.user.email,
  emailVerified: true,
  name: 'Person',
  amr: ['pwd'],
  authTime: undefined,
  ...change,
});

/** A browser with a pending request sent off to the provider; answers what the upstream was told. */
const started = async (
  provider: string,
  extra: Record<string, string> = {},
  query: Record<string, string> = {},
) => {
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id, extra)));
  const page = await browser.get(startFederation, { request, provider, ...query });
  expect(page.statusCode).toBe(303);
  const sent = locationOf(page);
  return { browser, request, sent, state: sent.searchParams.get('state') ?? '' };
};

const callback = (browser: PagesBrowser, provider: string, query: Record<string, string>) =>
  browser.get(finishFederation, query, { clientId: provider });

/** The sign-in records of the shared organization through a provider (each test has its own). */
const federatedRecords = async (provider: string) =>
  (await auditTrail(shared.organization.id, { action: 'signin.' })).filter(
    (record) => record.signIn?.provider === provider,
  );

describe('starting a federated sign-in', () => {
  it('sends this browser to the upstream with a state stored as a digest, a nonce and a PKCE verifier', async () => {
    const provider = await newProvider();
    const { request, sent, state } = await started(provider, {}, { login_hint: `${'a'.repeat(400)}@x` });
    expect(`${sent.origin}${sent.pathname}`).toBe(`${ISSUER}/authorize`);
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      clientId: provider,
      redirectUri: `http://localhost/signin/sso/callback/${provider}`,
      state,
      nonce: expect.any(String),
      codeVerifier: expect.any(String),
      scope: 'openid email profile',
      loginHint: 'a'.repeat(320),
    });
    expect(await getItem(keys.federationState(digestOf(state)))).toMatchObject({
      requestId: request,
      providerClientId: provider,
      issuer: ISSUER,
      nonce: sent.searchParams.get('nonce'),
      codeVerifier: sent.searchParams.get('codeVerifier'),
    });
    expect(vi.mocked(discover)).toHaveBeenCalledWith(ISSUER, provider, expect.any(Number));
  });

  it("asks the upstream for the provider's scopes, and for a fresh sign-in when the application does", async () => {
    const provider = await newProvider({ scopes: 'openid email' });
    expect(
      Object.fromEntries((await started(provider, { prompt: 'login' })).sent.searchParams),
    ).toMatchObject({
      scope: 'openid email',
      prompt: 'login',
      maxAge: '0',
    });
    const withMaxAge = Object.fromEntries((await started(provider, { max_age: '300' })).sent.searchParams);
    expect(withMaxAge).toMatchObject({ maxAge: '300' });
    expect(withMaxAge).not.toHaveProperty('prompt');
  });

  it("refuses another browser's request, and a provider the organization does not offer", async () => {
    const provider = await newProvider();
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id)));
    // Positive control: this browser's request with this organization's provider.
    expect((await browser.get(startFederation, { request, provider })).statusCode).toBe(303);
    const elsewhere = await new PagesBrowser().get(startFederation, { request, provider });
    expect(elsewhere.statusCode).toBe(400);
    expect(alertOf(elsewhere)).toBe(EXPIRED);
    for (const other of [{ provider: 'not-bound' }, {}] as Record<string, string>[]) {
      const page = await browser.get(startFederation, { request, ...other });
      expect(page.statusCode).toBe(404);
      expect(alertOf(page)).toBe(NOT_OFFERED);
    }
    // Naming no provider looks none up.
    const unnamed = await measureRoundTrips('no provider', () => browser.get(startFederation, { request }));
    expect(
      unnamed.recorded.flatMap((call) => call.partitions).filter((pk) => pk.startsWith('SSOORG#')),
    ).toEqual([]);
  });

  it('answers an upstream it cannot reach with a page of ours, before storing anything', async () => {
    const provider = await newProvider({ displayName: 'Corp login' });
    vi.mocked(discover).mockRejectedValueOnce(new FederationError('unreachable', 'timeout'));
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(shared.application.id)));
    const page = await browser.get(startFederation, { request, provider });
    expect(page.statusCode).toBe(502);
    expect(alertOf(page)).toBe('Corp login could not be reached. Try again in a few minutes.');
    expect(vi.mocked(authorizationUrl)).not.toHaveBeenCalled();
    vi.mocked(authorizationUrl).mockRejectedValueOnce(new FederationError('invalid-answer', 'bad document'));
    expect((await browser.get(startFederation, { request, provider })).statusCode).toBe(502);
    vi.mocked(discover).mockRejectedValueOnce(new Error('a bug'));
    await expect(browser.get(startFederation, { request, provider })).rejects.toThrow('a bug');
  });
});

describe("the upstream's answer", () => {
  it('signs in the person the upstream vouches for, with what this sign-in holds', async () => {
    const { provider, user } = await vouchingProvider();
    const { browser, sent, state } = await started(provider, { max_age: '300' });
    vi.mocked(upstreamIdentity).mockResolvedValueOnce(person({ email: user.email }));
    const page = await callback(browser, provider, { code: 'upstream-code', state });
    expect(page.statusCode).toBe(303);
    expect(page.cookies).toEqual([expect.stringMatching(/^idp-session=/)]);
    // The session names its provider: routing by email domain honours only that provider's sessions.
    expect(await liveSession(browser.cookies.get('idp-session'))).toMatchObject({
      amr: ['fed'],
      provider,
    });
    const [issuer, client, answer] = vi.mocked(upstreamIdentity).mock.calls[0] ?? [];
    expect(issuer).toBe(ISSUER);
    expect(client).toEqual({
      clientId: provider,
      clientSecret: 'upstream secret',
      redirectUri: `http://localhost/signin/sso/callback/${provider}`,
    });
    expect(answer).toMatchObject({
      query: new URLSearchParams({ code: 'upstream-code', state }).toString(),
      state,
      codeVerifier: sent.searchParams.get('codeVerifier'),
      nonce: sent.searchParams.get('nonce'),
    });
    // max_age travels, plus the seconds since the person was sent (none here, within a second).
    expect([300, 301]).toContain(answer?.maxAge);
    const redemption = await redeemAuthorizationCode(
      locationOf(page).searchParams.get('code') ?? '',
      { clientId: shared.application.id, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
      'family',
    );
    expect(redemption).toMatchObject({
      outcome: 'redeemed',
      // The provider travels with the code, for the routing its tokens are held to (routed-refresh.int).
      grant: { userId: user.id, amr: ['fed'], provider },
    });
    expect(await federatedRecords(provider)).toEqual([
      expect.objectContaining({
        action: 'signin.federated',
        outcome: 'success',
        actor: expect.objectContaining({ type: 'user', id: user.id, name: user.email }),
        targets: [{ type: 'user', id: user.id, name: user.email }],
        signIn: { application: shared.application.id, amr: ['fed'], provider },
      }),
    ]);
    // The state is used up.
    expect(alertOf(await callback(browser, provider, { code: 'upstream-code', state }))).toBe(EXPIRED);
  });

  it('passes no max_age without one, and takes the upstream MFA of a provider trusted for it', async () => {
    const { provider, user } = await vouchingProvider({ trustedForMfa: true });
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockResolvedValueOnce(person({ email: user.email, amr: ['pwd', 'mfa'] }));
    const page = await callback(browser, provider, { code: 'c', state });
    expect(vi.mocked(upstreamIdentity).mock.calls[0]?.[2].maxAge).toBeUndefined();
    const redemption = await redeemAuthorizationCode(
      locationOf(page).searchParams.get('code') ?? '',
      { clientId: shared.application.id, redirectUri: REDIRECT, codeChallenge: CHALLENGE },
      'family',
    );
    expect(redemption).toMatchObject({ grant: { amr: ['fed', 'mfa'] } });
    expect((await federatedRecords(provider)).map((record) => record.signIn)).toEqual([
      { application: shared.application.id, amr: ['fed', 'mfa'], provider },
    ]);
  });

  it('carries the provider through the two steps of an organization that uses them', async () => {
    const mfa = await signInSetup({ mfaEnabled: true });
    const provider = `sso-${randomUUID().slice(0, 8)}`;
    await configureSsoProvider(
      {
        clientId: provider,
        organizationIds: [mfa.organization.id],
        clientSecret: 's',
        issuer: ISSUER,
        emailDomains: [domainOf(mfa.user.email)],
      },
      'test',
    );
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
    const sent = locationOf(await browser.get(startFederation, { request, provider }));
    vi.mocked(upstreamIdentity).mockResolvedValueOnce(person({ email: mfa.user.email }));
    const enrol = await callback(browser, provider, {
      code: 'c',
      state: sent.searchParams.get('state') ?? '',
    });
    expect(enrol.headers?.location).toMatch(/^\/signin\/enrol/);
    const secret = await pendingTotpSecret(request);
    expect((await browser.post(submitTotp, { request, code: totpCodeAt(secret) })).statusCode).toBe(200);
    expect((await browser.post(submitContinue, { request })).statusCode).toBe(303);
    const records = await auditTrail(mfa.organization.id, { actorId: mfa.user.id });
    expect(records.find((record) => record.action === 'signin.federated')?.signIn).toEqual({
      application: mfa.application.id,
      amr: ['fed', 'otp', 'mfa'],
      provider,
    });
    expect(records.find((record) => record.action === 'mfa.enrolled')?.signIn).toEqual({
      application: mfa.application.id,
      amr: ['fed', 'otp', 'mfa'],
      provider,
    });
  });

  it("is refused without this browser's pending request, or with a state that is not one", async () => {
    const provider = await newProvider();
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockResolvedValue(person());
    for (const [who, query] of [
      [new PagesBrowser(), { code: 'c', state }],
      [browser, { code: 'c' }],
      [browser, { code: 'c', state: 'not-a-state' }],
    ] as const) {
      const page = await callback(who, provider, query);
      expect(page.statusCode).toBe(400);
      expect(alertOf(page)).toBe(EXPIRED);
    }
    expect(vi.mocked(upstreamIdentity)).not.toHaveBeenCalled();
  });

  it("is refused at another provider's redirect URI (mix-up)", async () => {
    const provider = await newProvider();
    const other = await newProvider();
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockResolvedValue(person());
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const page = await callback(browser, other, { code: 'c', state });
    expect(page.statusCode).toBe(400);
    expect(alertOf(page)).toBe(EXPIRED);
    expect(vi.mocked(upstreamIdentity)).not.toHaveBeenCalled();
    expect(warn.mock.calls).toEqual([
      [
        "federated answer at another provider's redirect URI",
        { organizationId: shared.organization.id, ssoClientId: provider },
      ],
    ]);
  });

  it('is refused once the provider no longer serves the organization, or speaks for another issuer', async () => {
    const unbound = await newProvider();
    const first = await started(unbound);
    await configureSsoProvider(
      { clientId: unbound, organizationIds: [(await signInSetup()).organization.id] },
      'test',
    );
    const changed = await newProvider();
    const second = await started(changed);
    await configureSsoProvider(
      { clientId: changed, organizationIds: [shared.organization.id], issuer: 'https://other.example' },
      'test',
    );
    vi.mocked(upstreamIdentity).mockResolvedValue(person());
    for (const [browser, provider, state] of [
      [first.browser, unbound, first.state],
      [second.browser, changed, second.state],
    ] as const) {
      const page = await callback(browser, provider, { code: 'c', state });
      expect(page.statusCode).toBe(403);
      expect(alertOf(page)).toBe(NOT_OFFERED);
    }
  });

  it.each(['access_denied', 'login_required'])(
    'tells the application access_denied when the upstream says %s',
    async (error) => {
      const provider = await newProvider();
      const { browser, request, state } = await started(provider);
      const info = vi.spyOn(logger, 'info');
      const page = await callback(browser, provider, { error, state });
      expect(info).toHaveBeenCalledWith('federated sign-in refused upstream', {
        organizationId: shared.organization.id,
        ssoClientId: provider,
        error,
      });
      expect(Object.fromEntries(locationOf(page).searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'The person did not sign in',
        state: 'state-1',
        iss: 'http://localhost',
      });
      expect(await getItem(keys.authorizationRequest(request))).toBeUndefined();
    },
  );

  it('answers another upstream error with a page of ours, and one for a request already answered', async () => {
    const provider = await newProvider({ displayName: 'Corp login' });
    const { browser, request, state } = await started(provider);
    const info = vi.spyOn(logger, 'info');
    // What the upstream says is logged as a short token only.
    const page = await callback(browser, provider, { error: `server_error <b>"${'x'.repeat(80)}`, state });
    expect(info).toHaveBeenCalledWith('federated sign-in refused upstream', {
      organizationId: shared.organization.id,
      ssoClientId: provider,
      error: `server_errorb${'x'.repeat(51)}`,
    });
    expect(page.statusCode).toBe(502);
    expect(alertOf(page)).toBe('Corp login did not sign you in. Go back to the application and try again.');
    expect(await getItem(keys.authorizationRequest(request))).toBeDefined();
  });

  it('of two refusals of one request (two states), only one reaches the application', async () => {
    const provider = await newProvider();
    const { browser, request, state } = await started(provider);
    const second = locationOf(await browser.get(startFederation, { request, provider })).searchParams.get(
      'state',
    );
    const answers = await Promise.all([
      callback(browser, provider, { error: 'access_denied', state }),
      callback(browser, provider, { error: 'access_denied', state: second ?? '' }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([303, 400]);
  });

  it('answers an answer without a code, or a provider without its secret, with a page of ours', async () => {
    const provider = await newProvider();
    const { browser, state } = await started(provider);
    const noCode = await callback(browser, provider, { state });
    expect(noCode.statusCode).toBe(400);
    expect(alertOf(noCode)).toBe(
      `${provider} sent no answer that can be used. Go back to the application and try again.`,
    );

    const unset = await newProvider();
    const second = await started(unset);
    await (await secretStore()).delete(ssoSecretName(unset, (await getSsoProvider(unset))?.secretVersion));
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const page = await callback(second.browser, unset, { code: 'c', state: second.state });
    expect(error.mock.calls).toEqual([['SSO client secret missing', { ssoClientId: unset }]]);
    expect(page.statusCode).toBe(502);
    expect(alertOf(page)).toBe(
      `Sign-in through ${unset} is not set up completely. Contact your administrator.`,
    );
    expect(vi.mocked(upstreamIdentity)).not.toHaveBeenCalled();
  });

  it("gives the upstream what is left of the callback's one deadline once the client secret is read", async () => {
    const { provider, user } = await vouchingProvider();
    const { browser, state } = await started(provider);
    const store = await secretStore();
    const read = store.get.bind(store);
    // A slow Secrets Manager: the secret comes back 200 ms after it is asked for.
    vi.spyOn(store, 'get').mockImplementation(async (name) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return read(name);
    });
    vi.mocked(upstreamIdentity).mockResolvedValueOnce(person({ email: user.email }));
    const arrived = Date.now();
    expect((await callback(browser, provider, { code: 'c', state })).statusCode).toBe(303);
    expect(store.get).toHaveBeenCalled();
    const deadline = vi.mocked(upstreamIdentity).mock.calls[0]?.[3] ?? Number.POSITIVE_INFINITY;
    expect(deadline).toBeGreaterThanOrEqual(arrived + UPSTREAM_BUDGET_MILLIS - 1_000);
    // Counted from the request's arrival (stamped a moment after `arrived`), not from the secret's
    // answer 200 ms later.
    expect(deadline).toBeLessThan(arrived + UPSTREAM_BUDGET_MILLIS + 100);
  });

  it.each([
    ['unreachable', 'Corp login could not be reached. Try again in a few minutes.'],
    [
      'client-refused',
      "Corp login refused this service's client credentials. Ask your administrator to check the SSO provider's client id and secret.",
    ],
    ['refused', 'Corp login did not complete the sign-in. Go back to the application and try again.'],
    [
      'invalid-answer',
      'The answer from Corp login could not be verified, so it was not used. Go back to the application and try again.',
    ],
    [
      'authentication-too-old',
      'The application needs you to have signed in recently, and Corp login did not ask you to sign in again. Go back to the application and try again.',
    ],
  ] as const)('answers an exchange that fails as %s with its page', async (failure, message) => {
    const provider = await newProvider({ displayName: 'Corp login' });
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockRejectedValueOnce(new FederationError(failure, 'detail'));
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const page = await callback(browser, provider, { code: 'c', state });
    expect(page.statusCode).toBe(502);
    expect(alertOf(page)).toBe(message);
    expect(warn.mock.calls).toEqual([
      [
        'federated sign-in failed',
        { organizationId: shared.organization.id, ssoClientId: provider, failure, detail: 'detail' },
      ],
    ]);
    expect(vi.mocked(countMetric).mock.calls).toEqual([['FederationFailures']]);
  });

  it("says when a refused client's secret expired, by the operator's hint", async () => {
    const expired = Date.UTC(2024, 4, 31, 12);
    const provider = await newProvider({ displayName: 'Corp login', clientSecretExpirationDate: expired });
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockRejectedValueOnce(
      new FederationError('client-refused', 'invalid_client'),
    );
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const page = await callback(browser, provider, { code: 'c', state });
    expect(warn).toHaveBeenCalledWith('federated sign-in failed', {
      organizationId: shared.organization.id,
      ssoClientId: provider,
      failure: 'client-refused',
      detail: 'invalid_client',
      probableCause: 'client secret expired',
      secretExpiredAt: '2024-05-31T12:00:00.000Z',
    });
    expect(page.statusCode).toBe(502);
    expect(alertOf(page)).toBe(
      "Corp login refused this service's client secret, which expired on 2024-05-31. Ask your administrator to update the SSO provider's client secret.",
    );
    // A secret that expires later, or another failure, is no expired secret.
    const later = await newProvider({
      displayName: 'Corp login',
      clientSecretExpirationDate: Date.now() + 86_400_000,
    });
    const next = await started(later);
    vi.mocked(upstreamIdentity).mockRejectedValueOnce(
      new FederationError('client-refused', 'invalid_client'),
    );
    expect(alertOf(await callback(next.browser, later, { code: 'c', state: next.state }))).toMatch(
      /client credentials/,
    );
    const other = await started(provider);
    vi.mocked(upstreamIdentity).mockRejectedValueOnce(new FederationError('refused', 'invalid_grant'));
    expect(alertOf(await callback(other.browser, provider, { code: 'c', state: other.state }))).toBe(
      'Corp login did not complete the sign-in. Go back to the application and try again.',
    );
  });

  it('counts a secret that expires this very millisecond as expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2030, 5, 1) });
    const provider = await newProvider({ displayName: 'Corp login', clientSecretExpirationDate: Date.now() });
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockRejectedValueOnce(
      new FederationError('client-refused', 'invalid_client'),
    );
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const page = await callback(browser, provider, { code: 'c', state });
    expect(alertOf(page)).toMatch(/which expired on 2030-06-01/);
  });

  it('refuses a person the provider cannot vouch for', async () => {
    const provider = await newProvider();
    const { browser, state } = await started(provider);
    vi.mocked(upstreamIdentity).mockResolvedValueOnce(person({ emailVerified: false }));
    const info = vi.spyOn(logger, 'info');
    const page = await callback(browser, provider, { code: 'c', state });
    expect(info).toHaveBeenCalledWith('federated sign-in refused', {
      organizationId: shared.organization.id,
      ssoClientId: provider,
      reason: 'email-not-verified',
    });
    expect(vi.mocked(countMetric).mock.calls).toEqual([['SignInsRefused']]);
    expect(page.statusCode).toBe(403);
    expect(alertOf(page)).toMatch(/did not confirm your email address/);
    expect(page.cookies).toBeUndefined();
    // Nobody was matched: the record names the email the upstream claimed.
    expect(await federatedRecords(provider)).toEqual([
      expect.objectContaining({
        action: 'signin.failed',
        outcome: 'failure',
        reason: 'email-not-verified',
        actor: expect.objectContaining({ type: 'user', id: 'anonymous', name: shared.user.email }),
        targets: [],
        signIn: { application: shared.application.id, amr: ['fed'], provider },
      }),
    ]);
  });
});
