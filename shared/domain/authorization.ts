import { createHash } from 'node:crypto';
import { ONE_LINE } from '../schemas/text.js';
import type { ApiClientRecord, UserRecord } from '../store/entities.js';

/**
 * The rules of an OpenID Connect authorization request (`GET /oauth2/authorize`), pure: which
 * errors may go back to the application (RFC 6749 4.1.2.1) and which must stay on an error page
 * of ours because the client or its redirect URI is not verified (no open redirect).
 */

/** Scopes of sign-in: `openid` is required; any other value is ignored (OpenID Connect Core 3.1.2.1). */
export const SIGN_IN_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/** RFC 7636 4.1: 43 to 128 characters of the unreserved set. */
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** base64url of a SHA-256 digest: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** A non-negative whole number of seconds (up to about 300 years). */
const MAX_AGE = /^\d{1,10}$/;

export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

/** Whether a value can be a code_verifier at all. */
export const isPkceVerifier = (verifier: string): boolean => PKCE_VERIFIER.test(verifier);

export interface AuthorizationRequest {
  clientId: string;
  organizationId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge: string;
  /** What `prompt` asks of the sign-in, reduced to what it changes here (`promptOf`). */
  prompt?: 'none' | 'login';
  /** OpenID Connect Core 3.1.2.1: seconds since the person last authenticated, at most. */
  maxAge?: number;
  /** The person an `id_token_hint` named (Core 3.1.2.1): a sign-in as anyone else is refused. */
  hintedUserId?: string;
}

/** What an authorization request refused after its client and redirect URI were verified is told. */
export type AuthorizationError =
  | 'invalid_request'
  | 'invalid_scope'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'unsupported_response_type';

export type AuthorizationOutcome =
  /** The client or redirect URI is not verified: show our error page, never redirect. */
  | { kind: 'error-page'; message: string }
  /** Verified client and redirect URI: the error goes back to the application. */
  | {
      kind: 'error-redirect';
      redirectUri: string;
      state?: string;
      error: AuthorizationError;
      description: string;
    }
  /**
   * `loginHint`: what the sign-in form's email field starts with; `idTokenHint`: the ID token
   * naming who the application expects to be signed in (neither kept with the request).
   */
  | { kind: 'valid'; request: AuthorizationRequest; loginHint?: string; idTokenHint?: string };

/** OpenID Connect Core 3.1.2.1's `prompt` values, all taken (discovery's `prompt_values_supported`). */
export const PROMPT_VALUES = ['none', 'login', 'consent', 'select_account'] as const;

/**
 * What a `prompt` (space-separated values) asks of the sign-in here, or why it is refused.
 * `select_account` is `login`: a browser holds one session, so choosing an account is signing in
 * with it. `consent` asks for nothing: applications are registered by the organization's
 * administrators, so there is no per-application grant for the person to give (as Keycloak does
 * for a client that does not require consent); the organization's agreement is asked for
 * whenever a new version awaits.
 */
export const promptOf = (
  value: string,
): { prompt?: 'none' | 'login'; problem?: undefined } | { problem: string } => {
  const values = new Set(value.split(' ').filter(Boolean));
  if (![...values].every((one) => (PROMPT_VALUES as readonly string[]).includes(one)))
    return { problem: `prompt takes ${PROMPT_VALUES.join(', ')}` };
  if (values.has('none')) {
    return values.size === 1
      ? { prompt: 'none' }
      : { problem: 'prompt=none cannot be combined with other values' };
  }
  return values.has('login') || values.has('select_account') ? { prompt: 'login' } : {};
};

/** A parameter's value; an empty one counts as missing. Whether it is repeated is asked apart. */
const single = (query: URLSearchParams, name: string): string | undefined => query.get(name) || undefined;

const repeated = (query: URLSearchParams, name: string): boolean => query.getAll(name).length > 1;

/** A loopback IP literal over http: a native app's redirect, on whichever port it listens (RFC 8252 7.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);
const withoutLoopbackPort = (uri: string): string | undefined => {
  if (!URL.canParse(uri)) return undefined;
  const url = new URL(uri);
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  url.port = '';
  return url.href;
};

/**
 * Exact string comparison with a registered URI (OAuth 2.0 Security BCP 4.1.3), but for the port
 * of a loopback redirect, which a native app picks when it starts (RFC 8252 7.3, BCP 2.1).
 */
export const isRegisteredRedirect = (registered: readonly string[], uri: string): boolean => {
  if (registered.includes(uri)) return true;
  const portless = withoutLoopbackPort(uri);
  return (
    portless !== undefined && registered.some((candidate) => withoutLoopbackPort(candidate) === portless)
  );
};

/**
 * OpenID Connect Core 3.1.2.1's `login_hint`: the email the person will likely sign in with, as
 * the application knows it. Only a hint: one that could not be an email field's value (repeated,
 * longer than 320 characters, several lines) is left out, never refused.
 */
const loginHintOf = (query: URLSearchParams): string | undefined => {
  const hint = single(query, 'login_hint')?.trim();
  if (!hint || repeated(query, 'login_hint') || hint.length > 320) return undefined;
  return ONE_LINE.test(hint) ? hint : undefined;
};

/**
 * `state` and `nonce` are kept with the pending sign-in and echoed to the application (in the
 * redirect, in the ID token): bounded, as a pushed request is not bounded by a URL's length.
 */
const MAX_ECHOED_VALUE = 4096;
/** An ID token of ours is about a kilobyte; a hint far beyond is not one. */
const MAX_ID_TOKEN_HINT = 16_384;

/**
 * Checks an authorization request against the client it names (undefined: no such live client).
 * `pushed`: it came through POST /oauth2/par (or is being pushed), not straight from a browser.
 */
export const checkAuthorizationRequest = (
  query: URLSearchParams,
  client: ApiClientRecord | undefined,
  pushed: boolean,
): AuthorizationOutcome => {
  const clientId = single(query, 'client_id');
  if (!clientId || repeated(query, 'client_id'))
    return { kind: 'error-page', message: 'The request names no application (client_id).' };
  if (client?.flowType !== 'authorization_code') {
    return { kind: 'error-page', message: 'The application is not registered for sign-in.' };
  }
  const redirectUri = single(query, 'redirect_uri');
  if (
    !redirectUri ||
    repeated(query, 'redirect_uri') ||
    !isRegisteredRedirect(client.redirectUris, redirectUri)
  ) {
    return { kind: 'error-page', message: 'The redirect URI is not registered for this application.' };
  }
  const state = single(query, 'state');
  const back = (error: AuthorizationError, description: string): AuthorizationOutcome => ({
    kind: 'error-redirect',
    redirectUri,
    ...(state && !repeated(query, 'state') && state.length <= MAX_ECHOED_VALUE ? { state } : {}),
    error,
    description,
  });
  // RFC 9126 section 6: such an application's requests are only accepted pushed, so what a
  // browser carries cannot change them.
  if (client.requirePushedAuthorizationRequests && !pushed)
    return back('invalid_request', 'This application must push its authorization requests (PAR, RFC 9126)');
  for (const name of [
    'response_type',
    'scope',
    'state',
    'nonce',
    'code_challenge',
    'code_challenge_method',
    'prompt',
    'max_age',
    'response_mode',
    'id_token_hint',
  ]) {
    if (repeated(query, name)) return back('invalid_request', `The parameter ${name} is repeated`);
  }
  // OpenID Connect Core 6: each has its own error code.
  if (query.has('request')) return back('request_not_supported', 'Request objects are not supported');
  if (query.has('request_uri')) return back('request_uri_not_supported', 'request_uri is not supported');
  const responseType = single(query, 'response_type');
  if (responseType === undefined) return back('invalid_request', 'response_type is required');
  if (responseType !== 'code') {
    return back('unsupported_response_type', 'Only response_type=code is supported');
  }
  // The code goes back in the query only: a client asking for another mode would expect it
  // elsewhere (form_post keeps it out of the address).
  const responseMode = single(query, 'response_mode');
  if (responseMode !== undefined && responseMode !== 'query')
    return back('invalid_request', 'Only response_mode=query is supported');
  const scopes = (single(query, 'scope') ?? '').split(' ').filter(Boolean);
  if (!scopes.includes('openid')) return back('invalid_scope', 'The scope must contain openid');
  // Scope values this provider does not know are ignored (OpenID Connect Core 3.1.2.1); the
  // granted scope below holds only the sign-in scopes.
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (!challenge)
    return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
  if (method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(challenge))
    return back('invalid_request', 'code_challenge is not an S256 challenge');
  const asked = promptOf(single(query, 'prompt') ?? '');
  if (asked.problem !== undefined) return back('invalid_request', asked.problem);
  const { prompt } = asked;
  const maxAge = single(query, 'max_age');
  if (maxAge !== undefined && !MAX_AGE.test(maxAge)) {
    return back('invalid_request', 'max_age must be a whole number of seconds');
  }
  const nonce = single(query, 'nonce');
  const loginHint = loginHintOf(query);
  const idTokenHint = single(query, 'id_token_hint');
  for (const [name, value, most] of [
    ['state', state, MAX_ECHOED_VALUE],
    ['nonce', nonce, MAX_ECHOED_VALUE],
    ['id_token_hint', idTokenHint, MAX_ID_TOKEN_HINT],
  ] as const) {
    if (value !== undefined && value.length > most)
      return back('invalid_request', `${name} is longer than ${most} characters`);
  }
  return {
    kind: 'valid',
    ...(loginHint ? { loginHint } : {}),
    ...(idTokenHint ? { idTokenHint } : {}),
    request: {
      clientId: client.id,
      organizationId: client.organizationId,
      redirectUri,
      scope: scopes.filter((scope) => (SIGN_IN_SCOPES as readonly string[]).includes(scope)).join(' '),
      ...(state ? { state } : {}),
      ...(nonce ? { nonce } : {}),
      codeChallenge: challenge,
      ...(prompt ? { prompt } : {}),
      ...(maxAge === undefined ? {} : { maxAge: Number(maxAge) }),
    },
  };
};

/**
 * Whether a session authenticated at `authTime` (epoch ms) may sign the person in to `request`
 * without asking again: not with `prompt=login`, nor older than its `max_age`.
 */
export const sessionRecentEnough = (
  request: Pick<AuthorizationRequest, 'prompt' | 'maxAge'>,
  authTime: number,
  now: number,
): boolean =>
  request.prompt !== 'login' && (request.maxAge === undefined || now - authTime <= request.maxAge * 1000);

/**
 * Whether what a person's sign-in at `authTime` (epoch ms) gave still stands: they are still
 * ACTIVE and have not set a new password since (a reset ends every earlier sign-in).
 */
export const signInStillStands = (user: UserRecord | undefined, authTime: number): user is UserRecord =>
  user?.status === 'ACTIVE' && authTime >= (user.credentialsChangedAt ?? 0);

/**
 * The redirect back to the application (RFC 6749 4.1.2, with `iss` of RFC 9207 so a client
 * talking to several providers can tell which one answered).
 */
export const redirectBack = (
  redirectUri: string,
  parameters: Record<string, string | undefined>,
  issuer: string,
): string => {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries({ ...parameters, iss: issuer })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
};
