import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import {
  clientCredentialsOf,
  MAX_FORM_PARAMETERS,
  presentedClient,
  tokenRequestForm,
} from '../../shared/auth/token-request.js';
import { MAX_REQUEST_BODY_BYTES } from '../../shared/http/body-limits.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthError)
      return { status: error.status, error: error.error, description: error.description };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('token request form', () => {
  it('reads a form of parameters given once', () => {
    const form = tokenRequestForm({
      headers: FORM,
      body: 'grant_type=client_credentials&scope=openid+email',
    });
    expect(form.get('scope')).toBe('openid email');
  });

  it.each(['grant_type', 'client_id', 'client_secret', 'scope'])(
    'refuses %s given twice (RFC 6749 section 3.2)',
    (name) => {
      const body = `grant_type=client_credentials&client_id=a&client_secret=b&scope=x&${name}=again`;
      expect(refusal(() => tokenRequestForm({ headers: FORM, body }))).toEqual({
        status: 400,
        error: 'invalid_request',
        description: `The parameter '${name}' is repeated`,
      });
    },
  );

  it('reads a parameter without a value as omitted (RFC 6749 3.2), so it is no repeat either', () => {
    const form = tokenRequestForm({
      headers: FORM,
      body: 'grant_type=client_credentials&scope=&scope=x&client_secret=',
    });
    expect([...form]).toEqual([
      ['grant_type', 'client_credentials'],
      ['scope', 'x'],
    ]);
  });

  it(`reads ${MAX_FORM_PARAMETERS} parameters and refuses one more, whatever their names`, () => {
    const names = (count: number) => Array.from({ length: count }, (_, index) => `p${index}=1`).join('&');
    expect(tokenRequestForm({ headers: FORM, body: names(MAX_FORM_PARAMETERS) }).size).toBe(
      MAX_FORM_PARAMETERS,
    );
    expect(refusal(() => tokenRequestForm({ headers: FORM, body: names(MAX_FORM_PARAMETERS + 1) }))).toEqual({
      status: 400,
      error: 'invalid_request',
      description: `A request has at most ${MAX_FORM_PARAMETERS} parameters`,
    });
    // 120,000 distinct names, within the 1 MiB limit: once quadratic work for whoever sent them.
    const many = Array.from({ length: 120_000 }, (_, index) => `${index.toString(36)}=1`).join('&');
    expect(refusal(() => tokenRequestForm({ headers: FORM, body: many }))).toMatchObject({ status: 400 });
  });

  it('refuses a form over 1 MiB with 413 and another content type with 400', () => {
    const body = `grant_type=client_credentials&scope=${'a'.repeat(2 * 1024 * 1024)}`;
    expect(refusal(() => tokenRequestForm({ headers: FORM, body }))).toMatchObject({ status: 413 });
    expect(
      refusal(() => tokenRequestForm({ headers: { 'content-type': 'application/json' }, body: '{}' })),
    ).toEqual({
      status: 400,
      error: 'invalid_request',
      description: 'Content-Type must be application/x-www-form-urlencoded',
    });
  });

  it('takes a body of exactly 1 MiB, and refuses one byte more saying why', () => {
    const exactly = `scope=${'a'.repeat(MAX_REQUEST_BODY_BYTES - 'scope='.length)}`;
    expect(tokenRequestForm({ headers: FORM, body: exactly }).get('scope')).toHaveLength(
      MAX_REQUEST_BODY_BYTES - 6,
    );
    expect(refusal(() => tokenRequestForm({ headers: FORM, body: `${exactly}a` }))).toEqual({
      status: 413,
      error: 'invalid_request',
      description: 'The request body is larger than 1 MiB',
    });
  });

  it('reads a base64-encoded body, and no body as no parameters', () => {
    const body = Buffer.from('grant_type=client_credentials').toString('base64');
    expect(tokenRequestForm({ headers: FORM, body, isBase64Encoded: true }).get('grant_type')).toBe(
      'client_credentials',
    );
    expect([...tokenRequestForm({ headers: FORM }).keys()]).toEqual([]);
  });

  it.each([
    'application/x-www-form-urlencoded; charset=UTF-8',
    'Application/X-WWW-Form-Urlencoded',
    'application/x-www-form-urlencoded ;charset=utf-8',
  ])('takes the form content type as %s', (type) => {
    expect(tokenRequestForm({ headers: { 'content-type': type }, body: 'a=1' }).get('a')).toBe('1');
  });

  it.each([
    'text/plain; x=application/x-www-form-urlencoded',
    'application/x-www-form-urlencodedx',
    'application/x-www-form-urlencoded2; charset=utf-8',
  ])('refuses the content type %s', (type) => {
    expect(refusal(() => tokenRequestForm({ headers: { 'content-type': type }, body: 'a=1' }))).toMatchObject(
      {
        status: 400,
      },
    );
  });

  it('refuses a request without a content type', () => {
    expect(refusal(() => tokenRequestForm({ headers: {}, body: 'a=1' }))).toMatchObject({ status: 400 });
  });
});

describe('client credentials', () => {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  it('takes them from the form or from HTTP Basic, never both', () => {
    expect(clientCredentialsOf(form({ client_id: 'c1', client_secret: 's' }), undefined)).toMatchObject({
      clientId: 'c1',
      proof: 's',
    });
    expect(clientCredentialsOf(form({}), basic('c1', 's%3A1'))).toMatchObject({
      clientId: 'c1',
      proof: 's:1',
    });
    expect(refusal(() => clientCredentialsOf(form({ client_secret: 's' }), basic('c1', 's')))).toMatchObject({
      status: 400,
    });
    expect(refusal(() => clientCredentialsOf(form({ client_id: 'c2' }), basic('c1', 's')))).toMatchObject({
      status: 400,
    });
  });

  it.each([
    ['5,000 characters', 'c'.repeat(5000)],
    ['a path separator', 'a/b'],
    ['a space', 'a b'],
    ['a leading dot', '.a'],
  ])(
    'refuses a client id no client can have (%s) as invalid_client, before any lookup',
    (_label, clientId) => {
      expect(
        refusal(() => clientCredentialsOf(form({ client_id: clientId, client_secret: 's' }), undefined)),
      ).toEqual({
        status: 401,
        error: 'invalid_client',
        description: 'Client authentication failed',
      });
    },
  );

  it('refuses both methods, or a posted client_id other than the Basic one, saying which', () => {
    expect(refusal(() => clientCredentialsOf(form({ client_secret: 's' }), basic('c1', 's')))).toEqual({
      status: 400,
      error: 'invalid_request',
      description: 'Use one client authentication method, not two',
    });
    expect(refusal(() => clientCredentialsOf(form({ client_id: 'c2' }), basic('c1', 's')))).toEqual({
      status: 400,
      error: 'invalid_request',
      description: 'client_id does not match the Basic credentials',
    });
    // The same client_id posted beside Basic is no second method.
    expect(clientCredentialsOf(form({ client_id: 'c1' }), basic('c1', 's'))).toEqual({
      clientId: 'c1',
      proof: 's',
      usedBasic: true,
    });
  });

  it('says which method was used', () => {
    expect(clientCredentialsOf(form({ client_id: 'c1', client_secret: 's' }), undefined)).toEqual({
      clientId: 'c1',
      proof: 's',
      usedBasic: false,
    });
    expect(presentedClient(form({ client_id: 'c1', client_secret: 's' }), undefined)).toEqual({
      clientId: 'c1',
      clientSecret: 's',
      method: 'client_secret_post',
    });
    expect(presentedClient(form({}), basic('c1', 's'))).toEqual({
      clientId: 'c1',
      clientSecret: 's',
      method: 'client_secret_basic',
    });
  });

  it('takes a public application by its client_id alone, but not for client credentials', () => {
    expect(presentedClient(form({ client_id: 'app-1' }), undefined)).toEqual({
      clientId: 'app-1',
      method: 'none',
    });
    expect(refusal(() => clientCredentialsOf(form({ client_id: 'app-1' }), undefined))).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'Client credentials are required',
    });
    expect(refusal(() => presentedClient(form({}), undefined))).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'Client credentials are required',
    });
  });

  it('reads Basic credentials form-urlencoded (RFC 6749 2.3.1), whatever the space after Basic', () => {
    const encoded = Buffer.from('my%3Aapp:a+b%2Bc').toString('base64');
    expect(clientCredentialsOf(form({}), `basic  ${encoded}`)).toEqual({
      clientId: 'my:app',
      proof: 'a b+c',
      usedBasic: true,
    });
  });

  it('reads no Basic credentials from another scheme or a value with more than one word', () => {
    const encoded = Buffer.from('c1:s').toString('base64');
    for (const authorization of [`XBasic ${encoded}`, `Basic ${encoded} more`]) {
      expect(refusal(() => clientCredentialsOf(form({}), authorization))).toEqual({
        status: 401,
        error: 'invalid_client',
        description: 'Client credentials are required',
      });
    }
  });

  it.each([
    ['no colon', 'c1'],
    ['a broken escape', 'c1:%E0%A4%A'],
    ['a broken escape in the id', '%zz:s'],
  ])('refuses Basic credentials with %s as malformed', (_case, credentials) => {
    expect(
      refusal(() => clientCredentialsOf(form({}), `Basic ${Buffer.from(credentials).toString('base64')}`)),
    ).toEqual({ status: 401, error: 'invalid_client', description: 'Malformed Basic credentials' });
  });

  it('refuses Basic credentials with an empty client id as missing ones', () => {
    expect(refusal(() => clientCredentialsOf(form({}), basic('', 's')))).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'Client credentials are required',
    });
  });

  it('takes client ids of 1 to 128 characters', () => {
    for (const clientId of ['a', 'a.b_c:d@e-f', 'c'.repeat(128)]) {
      expect(presentedClient(form({ client_id: clientId }), undefined)).toEqual({ clientId, method: 'none' });
    }
    expect(refusal(() => presentedClient(form({ client_id: 'c'.repeat(129) }), undefined))).toMatchObject({
      status: 401,
      description: 'Client authentication failed',
    });
  });
});

describe('client assertions (private_key_jwt)', () => {
  const TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  /** Signature unchecked here: only who it names matters before the client's keys are read. */
  const jwt = (payload: object) => `${part({ alg: 'ES256' })}.${part(payload)}.${part({ s: 1 })}`;
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const basic = `Basic ${Buffer.from('c1:s').toString('base64')}`;

  it('finds the client the assertion names, with client_id the same or left out', () => {
    const assertion = jwt({ sub: 'c1', iss: 'c1' });
    const expected = { clientId: 'c1', assertion, method: 'private_key_jwt' };
    expect(
      presentedClient(form({ client_assertion_type: TYPE, client_assertion: assertion }), undefined),
    ).toEqual(expected);
    expect(
      presentedClient(
        form({ client_assertion_type: TYPE, client_assertion: assertion, client_id: 'c1' }),
        undefined,
      ),
    ).toEqual(expected);
    expect(
      clientCredentialsOf(form({ client_assertion_type: TYPE, client_assertion: assertion }), undefined),
    ).toEqual({ clientId: 'c1', proof: { assertion }, usedBasic: false });
  });

  it.each([
    [
      'another client_id',
      { client_id: 'c2' },
      undefined,
      400,
      'client_id does not match the client assertion',
    ],
    [
      'a secret beside it',
      { client_secret: 's' },
      undefined,
      400,
      'Use one client authentication method, not two',
    ],
    ['Basic beside it', {}, basic, 400, 'Use one client authentication method, not two'],
    [
      'another assertion type',
      { client_assertion_type: 'urn:other' },
      undefined,
      401,
      /needs client_assertion and/,
    ],
    ['no assertion type', { client_assertion_type: '' }, undefined, 401, /needs client_assertion and/],
  ])('refuses an assertion with %s', (_case, fields, authorization, status, description) => {
    const assertion = jwt({ sub: 'c1', iss: 'c1' });
    const presented = { client_assertion_type: TYPE, client_assertion: assertion, ...fields };
    const refused = refusal(() => presentedClient(form(presented), authorization));
    expect(refused).toMatchObject({ status });
    expect(String((refused as { description: string }).description)).toMatch(description);
  });

  it.each([
    ['not a JWT', 'abc'],
    ['no sub', jwt({ iss: 'c1' })],
    ['a sub no client can have', jwt({ sub: 'a/b' })],
    ['padded base64url', `${jwt({ sub: 'c1' })}=`],
  ])('refuses an assertion that is %s before any lookup', (_case, assertion) => {
    expect(
      refusal(() =>
        presentedClient(form({ client_assertion_type: TYPE, client_assertion: assertion }), undefined),
      ),
    ).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'The client assertion is not a JWT naming a client (sub)',
    });
  });

  it('refuses an assertion type without an assertion', () => {
    expect(
      refusal(() => presentedClient(form({ client_assertion_type: TYPE, client_id: 'c1' }), undefined)),
    ).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
  });
});
