import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJws } from '../../shared/auth/compact-jwt.js';
import { introspect as introspectAt } from '../../shared/auth/introspection.js';
import { currentSigningKey } from '../../shared/auth/signing-keys.js';
import { getApiClient } from '../../shared/store/api-client-repository.js';
import { setUserStatus, updateUserAttributes } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { type ClientCaller, useService } from '../support/service.js';
import {
  type Application,
  exchange,
  newApplication,
  personWithPassword,
  REDIRECT,
  registerApplication,
  relyingParty,
  signIn,
} from '../support/sign-in-flow.js';

/**
 * Token introspection (RFC 7662): active while a token stands, for the callers it may be shown
 * to, and `{"active": false}` for everything else. Each refusal starts from the same question
 * answered active.
 */
const service = useService();

interface Credentials {
  id: string;
  secret: string;
}

let application: Application;
/** The administrator client: the resource server of these tests. */
let resourceServer: Credentials;

beforeAll(async () => {
  application = await newApplication(service);
  resourceServer = { id: service.clientId, secret: service.clientSecret };
});

const credentialsOf = (caller: ClientCaller): Credentials => ({
  id: caller.principalId,
  secret: caller.clientSecret,
});

const introspection = (token: string | undefined, as: Credentials, how: 'basic' | 'post' = 'basic') =>
  fetch(`${service.baseUrl}/oauth2/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(how === 'basic' ? { authorization: `Basic ${btoa(`${as.id}:${as.secret}`)}` } : {}),
    },
    body: new URLSearchParams({
      ...(token === undefined ? {} : { token }),
      ...(how === 'post' ? { client_id: as.id, client_secret: as.secret } : {}),
    }),
  });

const introspect = async (token: string, as: Credentials) => {
  const answer = await introspection(token, as);
  expect(answer.status).toBe(200);
  return (await answer.json()) as Record<string, unknown>;
};

/** A person signed in to the application through openid-client: their access and refresh tokens. */
const signedIn = async (to: Application = application) => {
  const configuration = await relyingParty(service, to, oidc.ClientSecretBasic(to.clientSecret));
  const { id, email } = await personWithPassword(service, 'introspected-person');
  const tokens = await exchange(configuration, await signIn(service, configuration, { email }));
  return { configuration, id, tokens, refreshToken: tokens.refresh_token as string };
};

const appCredentials = () => ({ id: application.id, secret: application.clientSecret });

/** A new password's time (epoch ms) in the second after the access token's `iat`. */
const secondAfter = (tokens: { access_token: string }) =>
  ((decodeJwt(tokens.access_token).iat as number) + 1) * 1000;

describe('token introspection', () => {
  it("answers a client's own token active with its claims, whichever way the secret is sent", async () => {
    const token = await service.token();
    const basic = await introspection(token, resourceServer);
    expect(basic.status).toBe(200);
    expect(basic.headers.get('cache-control')).toBe('no-store');
    const claims = decodeJwt(token);
    expect(await basic.json()).toEqual({
      active: true,
      token_type: 'Bearer',
      scope: claims.scope,
      client_id: service.clientId,
      sub: service.clientId,
      aud: 'idp',
      iss: service.baseUrl,
      exp: claims.exp,
      iat: claims.iat,
      jti: claims.jti,
      org: service.organizationId,
    });
    const posted = await introspection(token, resourceServer, 'post');
    expect(await posted.json()).toMatchObject({ active: true, sub: service.clientId });
    const metadata = (await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()) as {
      introspection_endpoint: string;
    };
    expect(metadata.introspection_endpoint).toBe(`${service.baseUrl}/oauth2/introspect`);
  });

  it("answers a person's tokens while the sign-in stands: the refresh token to its application alone", async () => {
    const { configuration, id, tokens, refreshToken } = await signedIn();
    expect(await introspect(tokens.access_token, resourceServer)).toMatchObject({
      active: true,
      sub: id,
      client_id: application.id,
      org: service.organizationId,
    });
    const refresh = await introspect(refreshToken, appCredentials());
    expect(refresh).toMatchObject({ active: true, sub: id, client_id: application.id, scope: tokens.scope });
    expect(refresh.exp).toBeGreaterThan(Date.now() / 1000);
    // Another client of the organization may not learn about the application's refresh token.
    expect(await introspect(refreshToken, resourceServer)).toEqual({ active: false });
    // Rotated: the old one is spent, its successor active; revoked: neither.
    const rotated = await oidc.refreshTokenGrant(configuration, refreshToken);
    expect(await introspect(refreshToken, appCredentials())).toEqual({ active: false });
    const successor = rotated.refresh_token as string;
    expect(await introspect(successor, appCredentials())).toMatchObject({ active: true });
    await oidc.tokenRevocation(configuration, successor);
    expect(await introspect(successor, appCredentials())).toEqual({ active: false });
  });

  it('answers a person deactivated since as inactive, access and refresh tokens alike', async () => {
    const { id, tokens, refreshToken } = await signedIn();
    expect(await introspect(tokens.access_token, resourceServer)).toMatchObject({ active: true });
    expect(await introspect(refreshToken, appCredentials())).toMatchObject({ active: true });
    await setUserStatus(service.organizationId, id, 'INACTIVE');
    expect(await introspect(tokens.access_token, resourceServer)).toEqual({ active: false });
    expect(await introspect(refreshToken, appCredentials())).toEqual({ active: false });
  });

  it('answers a sign-in ended by a new password, or by time, as inactive', async () => {
    const { id, tokens, refreshToken } = await signedIn();
    const caller = await getApiClient(application.id);
    if (!caller) throw new Error('the application is registered');
    // Positive control: now, both stand.
    expect(await introspectAt(caller, refreshToken)).toMatchObject({ active: true });
    // Past its sliding lifetime (14 days without use), within the sign-in's 30.
    const later = Date.now() + 15 * 24 * 3600 * 1000;
    expect(await introspectAt(caller, refreshToken, later)).toEqual({ active: false });
    // A new password ends every earlier sign-in (as a reset does), the person still ACTIVE; the
    // access token's iat is whole seconds, so the change is a second after it.
    await updateUserAttributes(service.organizationId, id, { credentialsChangedAt: secondAfter(tokens) });
    expect(await introspect(tokens.access_token, resourceServer)).toEqual({ active: false });
    expect(await introspect(refreshToken, appCredentials())).toEqual({ active: false });
  });

  it("shows an application its own users' tokens, not another application's", async () => {
    const { tokens } = await signedIn();
    const other = await newApplication(service);
    // Positive control: the application the token was issued to, and a resource server.
    expect(await introspect(tokens.access_token, appCredentials())).toMatchObject({ active: true });
    expect(await introspect(tokens.access_token, resourceServer)).toMatchObject({ active: true });
    expect(await introspect(tokens.access_token, { id: other.id, secret: other.clientSecret })).toEqual({
      active: false,
    });
  });

  it("answers a deleted client's token as inactive", async () => {
    const doomed = await service.callerWith(['USER.LIST']);
    expect(await introspect(doomed.token, resourceServer)).toMatchObject({
      active: true,
      sub: doomed.principalId,
    });
    const deleted = await service.call('DELETE', `/idp/clients/${doomed.principalId}`, {
      token: service.admin.token,
    });
    expect(deleted.status).toBe(204);
    expect(await introspect(doomed.token, resourceServer)).toEqual({ active: false });
  });

  it("never answers another organization's token active, either way", async () => {
    const other = await service.freshOrganization();
    const ownToken = await service.token();
    // Positive controls: each organization's client sees its own organization's token.
    expect(await introspect(ownToken, resourceServer)).toMatchObject({ active: true });
    expect(await introspect(other.token, credentialsOf(other))).toMatchObject({ active: true });
    expect(await introspect(ownToken, credentialsOf(other))).toEqual({ active: false });
    expect(await introspect(other.token, resourceServer)).toEqual({ active: false });
  });

  it('answers a token signed with the service key but another issuer or organization as inactive', async () => {
    const claims = decodeJwt(await service.token());
    const resigned = async (changes: Record<string, unknown>) =>
      signJws(await currentSigningKey(), { typ: 'at+jwt' }, { ...claims, ...changes });
    // Positive control: the same claims signed again are active.
    expect(await introspect(await resigned({}), resourceServer)).toMatchObject({ active: true });
    expect(await introspect(await resigned({ iss: 'https://elsewhere.example' }), resourceServer)).toEqual({
      active: false,
    });
    expect(await introspect(await resigned({ org: 'another-organization' }), resourceServer)).toEqual({
      active: false,
    });
    expect(await introspect('not-a-token', resourceServer)).toEqual({ active: false });
  });

  it('takes an application by its registered method, and an API client from its registered addresses', async () => {
    const token = await service.token();
    const since = Date.now();
    // The application registered client_secret_basic: the same secret in the form is refused.
    expect((await introspection(token, appCredentials(), 'basic')).status).toBe(200);
    const posted = await introspection(token, appCredentials(), 'post');
    expect(posted.status).toBe(401);
    expect(await posted.json()).toMatchObject({ error: 'invalid_client' });
    const addresses = async (remoteAddresses: string[]) => {
      const registered = await service.call<{ id: string; clientSecret: string }>('POST', '/idp/clients', {
        token: service.admin.token,
        body: { name: 'Resource server', clientType: 'STANDARD', remoteAddresses },
      });
      return { id: registered.body.id, secret: registered.body.clientSecret };
    };
    const here = await addresses(['127.0.0.0/8', '::1/128', '::ffff:127.0.0.1']);
    expect(await introspect(token, here)).toMatchObject({ active: true });
    const elsewhere = await addresses(['203.0.113.0/24']);
    const refused = await introspection(token, elsewhere);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unauthorized_client' });
    // Each refusal of a client that exists is recorded, as at the token endpoint.
    const records = await auditTrail(service.organizationId, { action: 'token.refused', since });
    expect(records.map((record) => record.actor.id).sort()).toEqual([application.id, elsewhere.id].sort());
  });

  it('refuses a wrong secret, a public application and a missing token', async () => {
    const token = await service.token();
    expect((await introspection(token, resourceServer)).status).toBe(200);
    const wrong = await introspection(token, { ...resourceServer, secret: `${resourceServer.secret}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_client' });
    expect(wrong.headers.get('www-authenticate')).toBe('Basic realm="idp"');
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'none',
    });
    const publicApp = await fetch(`${service.baseUrl}/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: registered.body.id }),
    });
    expect(publicApp.status).toBe(401);
    expect(await publicApp.json()).toMatchObject({ error: 'invalid_client' });
    const missing = await introspection(undefined, resourceServer);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('userinfo, as introspection sees the token', () => {
  const userInfo = async (token: string) => {
    const answer = await fetch(`${service.baseUrl}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: answer.status, challenge: answer.headers.get('www-authenticate') };
  };
  const refused = { status: 401, challenge: expect.stringContaining('error="invalid_token"') };

  it('answers no more once a new password ends the sign-in, a token of its very second apart', async () => {
    const { id, tokens } = await signedIn();
    const issuedAt = (decodeJwt(tokens.access_token).iat as number) * 1000;
    // Positive control: a password set in the second the token was issued (iat is whole seconds:
    // a sign-in just after setting it must not be ended by it).
    await updateUserAttributes(service.organizationId, id, { credentialsChangedAt: issuedAt });
    expect(await userInfo(tokens.access_token)).toMatchObject({ status: 200 });
    expect(await introspect(tokens.access_token, resourceServer)).toMatchObject({ active: true });
    await updateUserAttributes(service.organizationId, id, { credentialsChangedAt: secondAfter(tokens) });
    expect(await userInfo(tokens.access_token)).toEqual(refused);
    expect(await introspect(tokens.access_token, resourceServer)).toEqual({ active: false });
  });

  it('answers no more once the application the token was issued to is deleted', async () => {
    const doomed = await newApplication(service);
    const { tokens } = await signedIn(doomed);
    expect(await userInfo(tokens.access_token)).toMatchObject({ status: 200 });
    const deleted = await service.call('DELETE', `/idp/clients/${doomed.id}`, { token: service.admin.token });
    expect(deleted.status).toBe(204);
    expect(await userInfo(tokens.access_token)).toEqual(refused);
    expect(await introspect(tokens.access_token, resourceServer)).toEqual({ active: false });
  });
});
