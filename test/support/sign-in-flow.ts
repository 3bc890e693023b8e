import { readFile } from 'node:fs/promises';
import * as oidc from 'openid-client';
import { expect } from 'vitest';
import { hashPassword } from '../../shared/auth/passwords.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { BrowserSession, hiddenField } from './browser-session.js';
import { uniqueEmail } from './records.js';
import type { Caller, TestService } from './service.js';

/** Sign-in as an application (openid-client) and a person (BrowserSession) go through it. */

export const REDIRECT = 'http://127.0.0.1:4999/callback';
export const AFTER_LOGOUT = 'http://127.0.0.1:4999/signed-out';
export const PASSWORD = 'correct horse battery staple';

let passwordHash: Promise<string> | undefined;

/**
 * A person of the service's organization who signs in with PASSWORD (set directly, not through a
 * link: their email is not verified). PASSWORD is hashed once per worker: hashing is most of it.
 */
export const personWithPassword = async (service: TestService, label: string, name = 'Signing Person') => {
  const email = uniqueEmail(label);
  const id = await service.createUser({ email, name });
  passwordHash ??= hashPassword(PASSWORD);
  await updateUserAttributes(service.organizationId, id, { passwordHash: await passwordHash });
  return { id, email };
};

export interface Application {
  id: string;
  clientSecret: string;
}

export const registerApplication = (
  service: TestService,
  body: Record<string, unknown>,
  as: Caller = service.admin,
) =>
  service.call<Application>('POST', '/idp/clients', {
    token: as.token,
    body: { name: 'Sign-in app', clientType: 'STANDARD', ...body },
  });

/** An authorization-code application of the caller's organization, with a secret. */
export const newApplication = async (service: TestService, as: Caller = service.admin) => {
  const registered = await registerApplication(
    service,
    { flowType: 'authorization_code', redirectUris: [REDIRECT], postLogoutRedirectUris: [AFTER_LOGOUT] },
    as,
  );
  expect(registered.status).toBe(201);
  return registered.body;
};

export const relyingParty = (service: TestService, application: Application, auth: oidc.ClientAuth) =>
  oidc.discovery(new URL(service.baseUrl), application.id, application.clientSecret || undefined, auth, {
    execute: [oidc.allowInsecureRequests],
  });

/** An authorization request's parameters, with fresh PKCE, state and nonce values. */
export const authorizationParameters = async (redirectUri: string, extra: Record<string, string> = {}) => {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const parameters = {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  };
  return { parameters, verifier, state, nonce };
};

/** An authorization request of the application, with fresh PKCE, state and nonce values. */
export const authorizationRequest = async (
  configuration: oidc.Configuration,
  redirectUri: string,
  extra: Record<string, string> = {},
) => {
  const { parameters, ...values } = await authorizationParameters(redirectUri, extra);
  return { url: oidc.buildAuthorizationUrl(configuration, parameters), ...values };
};

/** Opens the authorization endpoint in a browser session; answers the page (or redirect) and the PKCE values. */
export const startSignIn = async (
  configuration: oidc.Configuration,
  options: { browser?: BrowserSession; extra?: Record<string, string> } = {},
) => {
  const browser = options.browser ?? new BrowserSession();
  const { url, ...request } = await authorizationRequest(configuration, REDIRECT, options.extra);
  return { browser, ...request, response: await browser.fetch(url.href) };
};

/** Runs the authorization request and the password form; answers the redirect back, if any. */
export const signIn = async (
  service: TestService,
  configuration: oidc.Configuration,
  options: { browser?: BrowserSession; email: string; password?: string; extra?: Record<string, string> },
) => {
  const started = await startSignIn(configuration, options);
  const { browser, response } = started;
  let location = response.headers.get('location');
  if (!location) {
    const html = await response.text();
    expect(response.status).toBe(200);
    const answer = await browser.submit(`${service.baseUrl}/signin`, {
      request: hiddenField(html, 'request') ?? '',
      email: options.email,
      password: options.password ?? PASSWORD,
    });
    location = answer.headers.get('location');
    // A page of ours (the next sign-in step) rather than the redirect back to the application.
    if (!location || location.startsWith('/')) return { ...started, answer, location: undefined };
  }
  return { ...started, answer: undefined, location: new URL(location) };
};

export const exchange = (
  configuration: oidc.Configuration,
  flow: { location?: URL | undefined; verifier: string; state: string; nonce: string },
) =>
  oidc.authorizationCodeGrant(configuration, flow.location as URL, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });

/** The emails of a kind to a user, oldest first, read from the local outbox file. */
export const emailsTo = async (
  service: TestService,
  userId: string,
  type: 'JOIN_EMAIL' | 'PASSWORD_RESET_EMAIL' | 'SECURITY_NOTICE_EMAIL',
): Promise<{ subject: string; text: string }[]> => {
  const lines = (await readFile(`${service.dataDirectory}/outbox.jsonl`, 'utf8')).trim().split('\n');
  return lines
    .map((line) => JSON.parse(line) as { type: string; userId: string; subject: string; text: string })
    .filter((email) => email.userId === userId && email.type === type);
};

/** The link of the latest email of a kind to a user, read from the local outbox file. */
export const emailedLink = async (
  service: TestService,
  userId: string,
  type: 'JOIN_EMAIL' | 'PASSWORD_RESET_EMAIL',
): Promise<string> => {
  const lines = (await readFile(`${service.dataDirectory}/outbox.jsonl`, 'utf8')).trim().split('\n');
  const emails = lines
    .map((line) => JSON.parse(line) as { type: string; userId: string; text: string })
    .filter((email) => email.userId === userId && email.type === type);
  const link = /https?:\/\/\S+/.exec(emails.at(-1)?.text ?? '')?.[0];
  if (!link) throw new Error(`No ${type} with a link for ${userId}`);
  return link;
};

/** Follows redirects in the browser (across origins) until the application's redirect URI or a page. */
export const followRedirects = async (service: TestService, browser: BrowserSession, response: Response) => {
  let current = response;
  for (let hop = 0; hop < 12; hop++) {
    const location = current.headers.get('location');
    if (!location) return { response: current, location: undefined };
    const next = new URL(location, current.url || service.baseUrl);
    if (next.href.startsWith(REDIRECT)) return { response: current, location: next };
    current = await browser.fetch(next.href);
  }
  throw new Error('Too many redirects');
};
