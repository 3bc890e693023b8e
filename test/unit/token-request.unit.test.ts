import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import { clientCredentialsOf, tokenRequestForm } from '../../shared/auth/token-request.js';

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
        description: `The parameter "${name}" is repeated`,
      });
    },
  );

  it('refuses a form over 1 MiB with 413 and another content type with 400', () => {
    const body = `grant_type=client_credentials&scope=${'a'.repeat(2 * 1024 * 1024)}`;
    expect(refusal(() => tokenRequestForm({ headers: FORM, body }))).toMatchObject({ status: 413 });
    expect(
      refusal(() => tokenRequestForm({ headers: { 'content-type': 'application/json' }, body: '{}' })),
    ).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
  });
});

describe('client credentials', () => {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

  it('takes them from the form or from HTTP Basic, never both', () => {
    expect(clientCredentialsOf(form({ client_id: 'c1', client_secret: 's' }), undefined)).toMatchObject({
      clientId: 'c1',
      clientSecret: 's',
    });
    expect(clientCredentialsOf(form({}), basic('c1', 's%3A1'))).toMatchObject({
      clientId: 'c1',
      clientSecret: 's:1',
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
});
