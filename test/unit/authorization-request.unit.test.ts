import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkAuthorizationRequest,
  isPkceVerifier,
  redirectBack,
  s256,
  sessionRecentEnough,
} from '../../shared/domain/authorization.js';
import type { ApiClientRecord } from '../../shared/store/entities.js';

/**
 * The rules of `GET /oauth2/authorize`: what stays on our error page (client or redirect URI not
 * verified), what goes back to the application, and the request a valid one becomes. Each refusal
 * starts from the valid request and changes one parameter.
 */

const REDIRECT = 'https://app.example/cb';
const CHALLENGE = s256('v'.repeat(43));
const application = {
  id: 'app',
  organizationId: 'org',
  flowType: 'authorization_code',
  redirectUris: ['https://other.example/cb', REDIRECT],
} as unknown as ApiClientRecord;

const VALID = {
  client_id: 'app',
  redirect_uri: REDIRECT,
  response_type: 'code',
  scope: 'openid',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
};

/** The valid request with `changes` (undefined removes a parameter) and `extra` pairs appended. */
const check = (
  changes: Record<string, string | undefined> = {},
  extra: [string, string][] = [],
  client: ApiClientRecord = application,
  pushed = false,
) => {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...VALID, ...changes })) {
    if (value !== undefined) query.append(name, value);
  }
  for (const [name, value] of extra) query.append(name, value);
  return checkAuthorizationRequest(query, client, pushed);
};

const backWith = (error: string, description: string, state?: string) => ({
  kind: 'error-redirect',
  redirectUri: REDIRECT,
  ...(state === undefined ? {} : { state }),
  error,
  description,
});

describe('an authorization request', () => {
  it('becomes the request to sign in to, openid and the scopes of sign-in kept', () => {
    expect(
      check({ scope: 'openid email profile offline_access', state: 's1', nonce: 'n1', max_age: '60' }),
    ).toEqual({
      kind: 'valid',
      request: {
        clientId: 'app',
        organizationId: 'org',
        redirectUri: REDIRECT,
        scope: 'openid email profile offline_access',
        state: 's1',
        nonce: 'n1',
        codeChallenge: CHALLENGE,
        maxAge: 60,
      },
    });
  });

  it('keeps neither state, nonce, prompt nor max_age when the application sends none', () => {
    expect(check()).toEqual({
      kind: 'valid',
      request: {
        clientId: 'app',
        organizationId: 'org',
        redirectUri: REDIRECT,
        scope: 'openid',
        codeChallenge: CHALLENGE,
      },
    });
  });

  it('treats an empty value as a missing one', () => {
    expect(check({ state: '', nonce: '', prompt: '', max_age: '' })).toEqual(check());
    expect(check({ client_id: '' })).toMatchObject({ kind: 'error-page' });
  });

  it.each(['systemRoles', 'permissions', 'organization', 'name', 'nickname', 'phone', 'admin'])(
    'ignores the scope %s it does not know (OpenID Connect Core 3.1.2.1) and leaves it out of the request',
    (ignored) => {
      expect(check({ scope: `openid ${ignored}  email` })).toMatchObject({
        kind: 'valid',
        request: { scope: 'openid email' },
      });
    },
  );

  it('takes a value that reads "repeated" as that value, not as a repeated parameter', () => {
    const outcome = check({ state: 'repeated', nonce: 'repeated' });
    expect(outcome).toMatchObject({ kind: 'valid', request: { state: 'repeated', nonce: 'repeated' } });
    expect(check({ client_id: 'repeated' })).toMatchObject({ kind: 'valid' });
  });

  it('takes response_mode=query, where the code goes anyway', () => {
    expect(check({ response_mode: 'query' })).toEqual(check());
  });

  it('takes a loopback redirect on any port, as a native app listens on (RFC 8252 7.3), and nothing else', () => {
    const native = {
      ...application,
      redirectUris: ['http://127.0.0.1:4999/callback', 'http://[::1]/callback'],
    } as unknown as ApiClientRecord;
    for (const uri of [
      'http://127.0.0.1:4999/callback',
      'http://127.0.0.1:51234/callback',
      'http://127.0.0.1/callback',
      'http://[::1]:8080/callback',
    ])
      expect(check({ redirect_uri: uri }, [], native), uri).toMatchObject({ kind: 'valid' });
    for (const uri of [
      'http://127.0.0.1:51234/other',
      'http://localhost:4999/callback',
      'https://127.0.0.1:4999/callback',
      'http://127.0.0.2:4999/callback',
      'http://127.0.0.1:4999/callback?x=1',
      'not a url',
    ])
      expect(check({ redirect_uri: uri }, [], native), uri).toMatchObject({ kind: 'error-page' });
    // Anything but a loopback IP literal keeps its port: exact comparison.
    expect(
      check({ redirect_uri: REDIRECT.replace('https://app.example', 'https://app.example:8443') }),
    ).toMatchObject({
      kind: 'error-page',
    });
  });

  it.each([
    ['none', 'none'],
    ['login', 'login'],
    // One session per browser: choosing an account is signing in again.
    ['select_account', 'login'],
    ['consent select_account', 'login'],
    ['login consent', 'login'],
    [' login  ', 'login'],
  ])('takes prompt=%j as %s', (prompt, meaning) => {
    expect(check({ prompt })).toMatchObject({ kind: 'valid', request: { prompt: meaning } });
  });

  it('hands login_hint to the sign-in form, trimmed, and never keeps it with the request', () => {
    const hinted = check({ login_hint: ' ada@example.com ' });
    expect(hinted).toMatchObject({ kind: 'valid', loginHint: 'ada@example.com' });
    expect(hinted).not.toHaveProperty('request.loginHint');
  });

  it.each([
    ['repeated', {}, [['login_hint', 'a@example.com']]],
    ['longer than an email field takes', { login_hint: `${'a'.repeat(309)}@example.com` }, []],
    ['of two lines', { login_hint: 'a@example.com\nb@example.com' }, []],
  ] as [string, Record<string, string>, [string, string][]][])(
    'leaves out a login_hint %s, refusing nothing',
    (_case, changes, extra) => {
      const base = check({ login_hint: 'a@example.com', ...changes }, extra);
      expect(base).toMatchObject({ kind: 'valid' });
      expect(base).not.toHaveProperty('loginHint');
    },
  );

  it('hands id_token_hint to the endpoint, which checks it, and never keeps it with the request', () => {
    const hinted = check({ id_token_hint: 'a.b.c' });
    expect(hinted).toMatchObject({ kind: 'valid', idTokenHint: 'a.b.c' });
    expect(hinted).not.toHaveProperty('request.idTokenHint');
  });

  it('bounds state and nonce at 4,096 characters and id_token_hint at 16,384, echoing no state beyond', () => {
    const [state, nonce, hint] = ['s'.repeat(4096), 'n'.repeat(4096), 'h'.repeat(16_384)];
    expect(check({ state, nonce, id_token_hint: hint })).toMatchObject({ kind: 'valid', idTokenHint: hint });
    expect(check({ state: `${state}s` })).toEqual(
      backWith('invalid_request', 'state is longer than 4096 characters'),
    );
    expect(check({ state, nonce: `${nonce}n` })).toEqual(
      backWith('invalid_request', 'nonce is longer than 4096 characters', state),
    );
    expect(check({ id_token_hint: `${hint}h` })).toEqual(
      backWith('invalid_request', 'id_token_hint is longer than 16384 characters'),
    );
  });

  it('takes prompt=consent (OpenID Connect Core 11, with offline_access) as asking nothing more', () => {
    const asked = check({ prompt: 'consent', scope: 'openid offline_access' });
    expect(asked).toMatchObject({ kind: 'valid', request: { scope: 'openid offline_access' } });
    expect(asked).not.toHaveProperty('request.prompt');
  });

  describe('stays on our error page, never redirecting, when', () => {
    it.each([
      ['no client_id', { client_id: undefined }, [], 'The request names no application (client_id).'],
      ['client_id twice', {}, [['client_id', 'app']], 'The request names no application (client_id).'],
      [
        'no redirect_uri',
        { redirect_uri: undefined },
        [],
        'The redirect URI is not registered for this application.',
      ],
      [
        'redirect_uri twice',
        {},
        [['redirect_uri', REDIRECT]],
        'The redirect URI is not registered for this application.',
      ],
      [
        'an unregistered redirect_uri (a longer one)',
        { redirect_uri: `${REDIRECT}/more` },
        [],
        'The redirect URI is not registered for this application.',
      ],
    ] as const)('%s', (_case, changes, extra, message) => {
      expect(check(changes, extra as unknown as [string, string][])).toEqual({ kind: 'error-page', message });
    });

    it('the client is unknown, or an API client', () => {
      const message = 'The application is not registered for sign-in.';
      expect(checkAuthorizationRequest(new URLSearchParams(VALID), undefined, false)).toEqual({
        kind: 'error-page',
        message,
      });
      const apiClient = { ...application, flowType: 'api_key' } as ApiClientRecord;
      expect(check({}, [], apiClient)).toEqual({ kind: 'error-page', message });
    });
  });

  describe('goes back to the application', () => {
    it('when an application that must push its requests (RFC 9126 section 6) sends one straight', () => {
      const pushing = { ...application, requirePushedAuthorizationRequests: true } as ApiClientRecord;
      // Positive controls: pushed, it is valid; straight, it is valid for an application that need not push.
      expect(check({ state: 'st' }, [], pushing, true).kind).toBe('valid');
      expect(check({ state: 'st' }, [], application, false).kind).toBe('valid');
      expect(check({ state: 'st' }, [], pushing, false)).toEqual(
        backWith(
          'invalid_request',
          'This application must push its authorization requests (PAR, RFC 9126)',
          'st',
        ),
      );
      // Its client and redirect URI still come first: an unverified one stays on our page.
      expect(check({ redirect_uri: 'https://evil.example/cb' }, [], pushing, false).kind).toBe('error-page');
    });

    it.each([
      'response_type',
      'scope',
      'state',
      'nonce',
      'code_challenge',
      'code_challenge_method',
      'prompt',
      'max_age',
      'id_token_hint',
    ])('when %s is repeated (with the state, unless that is what is repeated)', (name) => {
      const first = {
        state: 'st',
        nonce: 'n',
        prompt: 'none',
        max_age: '1',
        id_token_hint: 'a.b.c',
      } as Record<string, string>;
      const outcome = check(first, [
        [name, (first[name] ?? (VALID as Record<string, string>)[name]) as string],
      ]);
      expect(outcome).toEqual(
        backWith('invalid_request', `The parameter ${name} is repeated`, name === 'state' ? undefined : 'st'),
      );
    });

    it.each([
      ['request', 'request_not_supported', 'Request objects are not supported', { request: 'eyJ.x.y' }],
      ['request_uri', 'request_uri_not_supported', 'request_uri is not supported', { request_uri: 'urn:x' }],
      [
        'response_type=token',
        'unsupported_response_type',
        'Only response_type=code is supported',
        { response_type: 'token' },
      ],
      ['no response_type', 'invalid_request', 'response_type is required', { response_type: undefined }],
      [
        'another response_mode',
        'invalid_request',
        'Only response_mode=query is supported',
        { response_mode: 'form_post' },
      ],
      [
        'a scope without openid',
        'invalid_scope',
        'The scope must contain openid',
        { scope: 'email profile' },
      ],
      ['no scope', 'invalid_scope', 'The scope must contain openid', { scope: undefined }],

      [
        'no code_challenge',
        'invalid_request',
        'PKCE is required: code_challenge with code_challenge_method=S256',
        { code_challenge: undefined },
      ],
      [
        'the plain method',
        'invalid_request',
        'code_challenge_method must be S256',
        { code_challenge_method: 'plain' },
      ],
      [
        'no method',
        'invalid_request',
        'code_challenge_method must be S256',
        { code_challenge_method: undefined },
      ],
      [
        'a short challenge',
        'invalid_request',
        'code_challenge is not an S256 challenge',
        { code_challenge: CHALLENGE.slice(1) },
      ],
      [
        'a long challenge',
        'invalid_request',
        'code_challenge is not an S256 challenge',
        { code_challenge: `${CHALLENGE}A` },
      ],
      [
        'a challenge with a character base64url lacks',
        'invalid_request',
        'code_challenge is not an S256 challenge',
        { code_challenge: `${CHALLENGE.slice(1)}+` },
      ],
      [
        'an unknown prompt value',
        'invalid_request',
        'prompt takes none, login, consent, select_account',
        { prompt: 'login create' },
      ],
      [
        'prompt=none with another value',
        'invalid_request',
        'prompt=none cannot be combined with other values',
        { prompt: 'none consent' },
      ],
      [
        'a negative max_age',
        'invalid_request',
        'max_age must be a whole number of seconds',
        { max_age: '-1' },
      ],
      [
        'a fractional max_age',
        'invalid_request',
        'max_age must be a whole number of seconds',
        { max_age: '1.5' },
      ],
      [
        'a max_age of 11 digits',
        'invalid_request',
        'max_age must be a whole number of seconds',
        { max_age: '1'.repeat(11) },
      ],
      [
        'max_age with a suffix',
        'invalid_request',
        'max_age must be a whole number of seconds',
        { max_age: '10s' },
      ],
      [
        'max_age with a prefix',
        'invalid_request',
        'max_age must be a whole number of seconds',
        { max_age: 's10' },
      ],
    ])('with %s', (_case, error, description, changes) => {
      expect(check({ ...changes, state: 'st' })).toEqual(backWith(error, description, 'st'));
      // Without a state, none goes back.
      expect(check(changes as Record<string, string | undefined>)).toEqual(backWith(error, description));
    });
  });
});

describe('PKCE (RFC 7636)', () => {
  it('computes S256 as base64url of the SHA-256 digest', () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    // RFC 7636 appendix B.
    expect(s256(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(s256(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
  });

  it('takes verifiers of 43 to 128 unreserved characters only', () => {
    expect(isPkceVerifier('a'.repeat(43))).toBe(true);
    expect(isPkceVerifier(`${'A-._~'.repeat(25)}z09`)).toBe(true);
    expect(isPkceVerifier('a'.repeat(42))).toBe(false);
    expect(isPkceVerifier('a'.repeat(129))).toBe(false);
    expect(isPkceVerifier(`+${'a'.repeat(43)}`)).toBe(false);
    expect(isPkceVerifier(`${'a'.repeat(43)}+`)).toBe(false);
    expect(isPkceVerifier(`${'a'.repeat(43)}\n`)).toBe(false);
  });
});

describe('a session recent enough to sign in without asking', () => {
  const AUTH_TIME = Date.UTC(2030, 0, 1);

  it('is any live session without prompt=login or max_age', () => {
    expect(sessionRecentEnough({}, AUTH_TIME, AUTH_TIME + 86_400_000)).toBe(true);
    expect(sessionRecentEnough({ prompt: 'none' }, AUTH_TIME, AUTH_TIME + 86_400_000)).toBe(true);
  });

  it('is none with prompt=login', () => {
    expect(sessionRecentEnough({ prompt: 'login' }, AUTH_TIME, AUTH_TIME)).toBe(false);
  });

  it('is one authenticated at most max_age seconds ago', () => {
    expect(sessionRecentEnough({ maxAge: 60 }, AUTH_TIME, AUTH_TIME + 60_000)).toBe(true);
    expect(sessionRecentEnough({ maxAge: 60 }, AUTH_TIME, AUTH_TIME + 60_001)).toBe(false);
    expect(sessionRecentEnough({ maxAge: 0 }, AUTH_TIME, AUTH_TIME)).toBe(true);
    expect(sessionRecentEnough({ maxAge: 0 }, AUTH_TIME, AUTH_TIME + 1)).toBe(false);
  });
});

describe('the redirect back to the application', () => {
  it('adds the parameters given and the issuer, keeping the registered query', () => {
    const url = new URL(
      redirectBack('https://app.example/cb?tenant=1', { code: 'c', state: undefined }, 'https://id.example'),
    );
    expect([...url.searchParams]).toEqual([
      ['tenant', '1'],
      ['code', 'c'],
      ['iss', 'https://id.example'],
    ]);
  });
});
