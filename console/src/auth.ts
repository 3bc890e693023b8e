import * as oauth from 'oauth4webapi';
import { consoleClientId as consoleClientIdOf } from '../../shared/domain/console-client.js';
import { SIGN_IN_ENDED, signInProblem } from './sign-in-problem.js';

/**
 * The console signs its person in as a public application of their organization
 * (`console-<organization>`, registered by `npm start` or `idp-admin console enable`): the
 * authorization code flow with PKCE, through oauth4webapi. Tokens live in this module's memory
 * only (never localStorage); a reload signs in again without a page (`prompt=none`) while the
 * identity provider's session lasts. Only the PKCE verifier, state and nonce of a sign-in under
 * way wait in sessionStorage across the redirect.
 */

export interface Session {
  accessToken: string;
  idToken: string;
  /**
   * What the console shows: the person (ID token) and their permissions (access token). Read, not
   * verified: the API decides what is allowed.
   */
  claims: { sub: string; email?: string; name?: string; permissions?: string[]; user_type?: string };
}

const PENDING = 'idp-console-sign-in';
const origin = new URL(location.origin);
// Locally the service is plain http on localhost; oauth4webapi asks for https unless told.
const insecure = origin.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};

export const organizationId = decodeURIComponent(location.pathname.split('/')[2] ?? '');
/** The console's own application, which signs people in to it (shared/console/console-application.ts). */
export const consoleClientId = consoleClientIdOf(organizationId);
const client: oauth.Client = { client_id: consoleClientId, token_endpoint_auth_method: 'none' };
const redirectUri = `${origin.origin}/console/${encodeURIComponent(organizationId)}`;

let server: oauth.AuthorizationServer | undefined;
const authorizationServer = async () => {
  server ??= await oauth.processDiscoveryResponse(origin, await oauth.discoveryRequest(origin, insecure));
  return server;
};

let current: (Session & { refreshToken?: string; expiresAt: number }) | undefined;

/** A JWT's claims: UTF-8 JSON (atob alone gives Latin-1, garbling "Zoë" into "ZoÃ«"). */
const decodeClaims = (token: string): Partial<Session['claims']> => {
  try {
    const binary = atob((token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0))));
  } catch {
    return {};
  }
};

const keep = (tokens: oauth.TokenEndpointResponse) => {
  current = {
    accessToken: tokens.access_token,
    idToken: tokens.id_token ?? current?.idToken ?? '',
    claims: {
      sub: '',
      ...decodeClaims(tokens.id_token ?? current?.idToken ?? ''),
      ...decodeClaims(tokens.access_token),
    },
    ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    expiresAt: Date.now() + (tokens.expires_in ?? 300) * 1000,
  };
  return current;
};

/**
 * Sends the browser to the sign-in page; `silent` asks for no page at all (a live session);
 * `maxAge` (seconds) asks for a sign-in at most that old, as a step-up challenge names it (RFC 9470).
 */
export const startSignIn = async (silent = false, hash = location.hash, maxAge?: number) => {
  const as = await authorizationServer();
  const pending = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomState(),
    silent,
    hash,
    ...(maxAge !== undefined ? { maxAge } : {}),
  };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint ?? `${origin.origin}/oauth2/authorize`);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
    ...(silent ? { prompt: 'none' } : {}),
    ...(maxAge !== undefined ? { max_age: String(maxAge) } : {}),
  }).toString();
  location.assign(url.href);
};

/**
 * The session after the redirect back (a code to exchange), or undefined when this load is not
 * one. Otherwise the sign-in button shows, with what went wrong (`problem`), if anything did: a
 * silent attempt that needs a page is no problem.
 */
export const finishSignIn = async (): Promise<Session | { problem?: string } | undefined> => {
  const parameters = new URLSearchParams(location.search);
  const saved = sessionStorage.getItem(PENDING);
  if (!saved || (!parameters.has('code') && !parameters.has('error'))) return undefined;
  sessionStorage.removeItem(PENDING);
  const pending = JSON.parse(saved) as {
    verifier: string;
    state: string;
    nonce: string;
    silent: boolean;
    hash: string;
    maxAge?: number;
  };
  history.replaceState(null, '', `${redirectUri}${pending.hash}`);
  const as = await authorizationServer();
  try {
    const callback = oauth.validateAuthResponse(as, client, parameters, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      callback,
      redirectUri,
      pending.verifier,
      insecure,
    );
    return keep(
      // With the max_age asked, the ID token's auth_time must show a sign-in that recent.
      await oauth.processAuthorizationCodeResponse(as, client, response, {
        expectedNonce: pending.nonce,
        ...(pending.maxAge !== undefined ? { maxAge: pending.maxAge } : {}),
      }),
    );
  } catch (error) {
    const problem = signInProblem(error, pending.silent);
    return problem ? { problem } : {};
  }
};

let signInEnded: ((problem: string) => void) | undefined;
/** `then` runs when the sign-in could not be renewed, once this tab has dropped its tokens. */
export const whenSignInEnds = (then: (problem: string) => void) => {
  signInEnded = then;
};

const refresh = async (refreshToken: string) => {
  const as = await authorizationServer();
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
    return keep(await oauth.processRefreshTokenResponse(as, client, response)).accessToken;
  } catch (error) {
    // Refused (ended, expired, revoked): the person signs in again. A network failure is kept as
    // it is, and the next call tries again.
    if (!(error instanceof oauth.ResponseBodyError)) throw error;
    current = undefined;
    signInEnded?.(SIGN_IN_ENDED);
    throw new Error(SIGN_IN_ENDED);
  }
};
let refreshing: Promise<string> | undefined;

/**
 * A live access token (the typed client asks for one on every request): refreshed a minute
 * before it expires, by one refresh however many calls are waiting, since a refresh token used
 * twice ends the whole sign-in (its rotation's reuse detection).
 */
export const accessToken = async (): Promise<string> => {
  if (!current) throw new Error('Not signed in');
  if (Date.now() < current.expiresAt - 60_000 || !current.refreshToken) return current.accessToken;
  refreshing ??= refresh(current.refreshToken).finally(() => {
    refreshing = undefined;
  });
  return refreshing;
};

/**
 * Every console tab of this browser hears a sign-out in any of them: each drops its tokens (an
 * access token would otherwise act for the person up to its expiry after they signed out).
 * Every organization's console: the identity provider's session they shared has ended.
 */
const signOuts = new BroadcastChannel('idp-console-sign-out');

/** `then` runs when another tab signed the person out, once this tab has dropped its tokens. */
export const whenSignedOutElsewhere = (then: () => void) =>
  signOuts.addEventListener('message', () => {
    current = undefined;
    then();
  });

/** RP-initiated logout: the identity provider ends its session and sends the browser back here. */
export const signOut = async () => {
  signOuts.postMessage('signed-out');
  const as = await authorizationServer();
  const url = new URL(as.end_session_endpoint ?? `${origin.origin}/oauth2/logout`);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    post_logout_redirect_uri: redirectUri,
    ...(current?.idToken ? { id_token_hint: current.idToken } : {}),
  }).toString();
  current = undefined;
  location.assign(url.href);
};
