import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { auditTrail } from '../support/audit.js';
import { useService } from '../support/service.js';

const service = useService();

const discover = (authentication: oidc.ClientAuth, secret = service.clientSecret) =>
  oidc.discovery(new URL(service.baseUrl), service.clientId, secret, authentication, {
    // The local service speaks plain HTTP on localhost.
    execute: [oidc.allowInsecureRequests],
  });

const postForm = (body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });

describe('token endpoint with a real OAuth client library', () => {
  it.each([
    ['client_secret_post', oidc.ClientSecretPost],
    ['client_secret_basic', oidc.ClientSecretBasic],
  ])('issues a verifiable ES256 token with %s', async (_method, authentication) => {
    const configuration = await discover(authentication());
    const metadata = configuration.serverMetadata();
    expect(metadata.issuer).toBe(service.baseUrl);
    expect(metadata.token_endpoint).toBe(`${service.baseUrl}/oauth2/token`);

    const scope = 'openid profile systemRoles permissions organization email name nickname unknown-scope';
    const tokens = await oidc.clientCredentialsGrant(configuration, { scope });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('openid profile systemRoles permissions organization email name nickname');

    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri as string));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: service.baseUrl,
      audience: 'idp',
      algorithms: ['ES256'],
    });
    expect(protectedHeader.kid).toBeTruthy();
    expect(payload).toMatchObject({
      sub: service.clientId,
      org: service.organizationId,
      principal_type: 'client',
      user_type: 'STANDARD',
      policies: [],
      plugin_permissions: {},
    });
    expect(payload.permissions).toContain('PERMISSIONS.LIST');
    expect(typeof payload.jti).toBe('string');
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
  });

  it('puts exactly the role permissions and their dependencies into the token', async () => {
    const client = await service.callerWith(['USER.UPDATE'], { clientType: 'RESTRICTED' });
    const response = await postForm({
      grant_type: 'client_credentials',
      client_id: client.principalId,
      client_secret: client.clientSecret,
    });
    const { access_token } = (await response.json()) as { access_token: string };
    const claims = JSON.parse(Buffer.from(access_token.split('.')[1] as string, 'base64url').toString());
    expect(claims.permissions).toEqual(['USER.DETAILS', 'USER.LIST', 'USER.UPDATE']);
    expect(claims.user_type).toBe('RESTRICTED');
    expect(decodeProtectedHeader(access_token).alg).toBe('ES256');
  });
});

describe('token endpoint errors (RFC 6749 section 5.2)', () => {
  it('answers invalid_client for a wrong secret and for an unknown client, recording the known one', async () => {
    const since = Date.now();
    for (const [clientId, clientSecret] of [
      [service.clientId, 'wrong'],
      ['nobody', 'nothing'],
    ] as const) {
      const response = await postForm({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toMatchObject({ error: 'invalid_client' });
    }
    // The existing client's organization hears of the attempt; a made-up id has none to tell.
    // token.refused alone: token.issued records of earlier minutes are timed when written, now.
    expect(await auditTrail(service.organizationId, { action: 'token.refused', since })).toEqual([
      expect.objectContaining({
        action: 'token.refused',
        outcome: 'failure',
        reason: 'invalid_client: Client authentication failed',
        actor: expect.objectContaining({ type: 'client', id: service.clientId, ip: expect.any(String) }),
        targets: [{ type: 'client', id: service.clientId }],
      }),
    ]);
  });

  it('asks Basic clients to authenticate again with WWW-Authenticate', async () => {
    const basic = Buffer.from(`${service.clientId}:wrong`).toString('base64');
    const response = await postForm(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${basic}` },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers unsupported_grant_type and invalid_request', async () => {
    const wrongGrant = await postForm({ grant_type: 'password', client_id: service.clientId });
    expect(wrongGrant.status).toBe(400);
    expect(await wrongGrant.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const missingGrant = await postForm({ client_id: service.clientId });
    expect(await missingGrant.json()).toMatchObject({ error: 'invalid_request' });
    const json = await fetch(`${service.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses two client authentication methods at once', async () => {
    const basic = Buffer.from(`${service.clientId}:${service.clientSecret}`).toString('base64');
    const response = await postForm(
      { grant_type: 'client_credentials', client_secret: service.clientSecret },
      { authorization: `Basic ${basic}` },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});
