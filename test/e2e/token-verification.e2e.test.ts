import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signJws } from '../../shared/auth/compact-jwt.js';
import { currentSigningKey } from '../../shared/auth/signing-keys.js';
import { userInfo } from '../../shared/auth/user-info.js';
import { config } from '../../shared/config.js';
import { useService } from '../support/service.js';
import { AFTER_LOGOUT, type Application, registerApplication } from '../support/sign-in-flow.js';

/**
 * The service's own tokens are refused for what each check names, not for a broken signature:
 * every refused token is signed with the service's own key, and differs from an accepted one only
 * in the claim under test (`iss`, `aud`, `exp`). Expiry is set by the instant a token is signed
 * at, far enough in the past that no clock step can matter; nothing waits for a token to expire.
 */
const service = useService();

const ELSEWHERE = 'https://elsewhere.example';
/** Epoch seconds, an hour ago and more: how old a refused token is made. */
const HOUR = 3600;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The claims re-signed with the service's own current key (or `key`), under `header`. */
const signedByService = async (
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key?: KeyObject,
) => {
  const current = await currentSigningKey();
  return signJws({ ...current, ...(key ? { key } : {}) }, header, claims);
};

/** The same token's claims issued at `issuedAt` (epoch seconds) with the same lifetime. */
const issuedAt = (claims: Record<string, unknown>, at: number) => ({
  ...claims,
  iat: at,
  exp: at + (Number(claims.exp) - Number(claims.iat)),
});

describe("the JWT authorizer (the local stand-in of API Gateway's)", () => {
  const permissions = (token: string) => service.call('GET', '/idp/permissions', { token });
  const challenge = (description: string) =>
    `Bearer scope="" error="invalid_token" error_description="${description}"`;
  const adminClaims = () => decodeJwt(service.admin.token) as Record<string, unknown>;

  it('accepts the administrator token re-signed with the service key (positive control)', async () => {
    const resigned = await signedByService({ typ: 'at+jwt' }, adminClaims());
    expect((await permissions(resigned)).status).toBe(200);
  });

  it.each([
    [
      'another issuer',
      (claims: Record<string, unknown>) => ({ ...claims, iss: ELSEWHERE }),
      'the token does not have a valid issuer',
    ],
    [
      'another audience',
      (claims: Record<string, unknown>) => ({ ...claims, aud: 'another-api' }),
      'the token does not have a valid audience',
    ],
    [
      'an expired token',
      (claims: Record<string, unknown>) => issuedAt(claims, Number(claims.iat) - 2 * HOUR),
      'token is expired',
    ],
  ])('refuses %s, signed with the service key, naming that check', async (_name, change, description) => {
    const refused = await permissions(await signedByService({ typ: 'at+jwt' }, change(adminClaims())));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(challenge(description));
  });

  it('refuses a token signed with another key under the service key id', async () => {
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const refused = await permissions(await signedByService({ typ: 'at+jwt' }, adminClaims(), stranger));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(challenge('signature is invalid'));
  });
});

describe('userinfo (aws-jwt-verify against the service keys)', () => {
  let personToken: string;
  let personId: string;
  beforeAll(async () => {
    personId = await service.createUser({ name: 'Userinfo Person' });
    personToken = await service.userToken(personId);
  });
  const personClaims = () => decodeJwt(personToken) as Record<string, unknown>;
  const ask = (token: string) =>
    fetch(`${service.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  it("answers a person's token re-signed with the service key (positive control)", async () => {
    const answer = await ask(await signedByService({ typ: 'at+jwt' }, personClaims()));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ sub: personId });
  });

  it.each([
    ['another issuer', (claims: Record<string, unknown>) => ({ ...claims, iss: ELSEWHERE })],
    ['another audience', (claims: Record<string, unknown>) => ({ ...claims, aud: 'another-api' })],
    [
      'an expired token',
      (claims: Record<string, unknown>) => issuedAt(claims, Number(claims.iat) - 2 * HOUR),
    ],
  ])('refuses %s signed with the service key', async (_name, change) => {
    const answer = await ask(await signedByService({ typ: 'at+jwt' }, change(personClaims())));
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="idp", error="invalid_token"');
  });

  // Expiry is checked twice, by the verifier (its own clock) and by userinfo (the `now` it is
  // given): each refuses on its own when the other's clock still says the token is valid.
  it("refuses a token expired by userinfo's clock, though the verifier's still takes it", async () => {
    const { exp } = personClaims();
    const bearer = `Bearer ${personToken}`;
    expect(await userInfo(bearer, Number(exp) * 1000 - 1000)).toMatchObject({ claims: { sub: personId } });
    expect(await userInfo(bearer, Number(exp) * 1000)).toEqual({ error: 'invalid_token' });
  });

  it("refuses a token expired by the verifier's clock, though userinfo's still takes it", async () => {
    const expired = issuedAt(personClaims(), nowSeconds() - 2 * HOUR);
    const bearer = `Bearer ${await signedByService({ typ: 'at+jwt' }, expired)}`;
    expect(await userInfo(bearer, Number(expired.exp) * 1000 - 1000)).toEqual({ error: 'invalid_token' });
  });
});

describe('the ID token hint of logout (aws-jwt-verify against the service keys)', () => {
  let application: Application;
  let otherApplication: Application;
  let personId: string;
  beforeAll(async () => {
    const register = (postLogoutRedirectUris: string[]) =>
      registerApplication(service, {
        flowType: 'authorization_code',
        redirectUris: ['http://127.0.0.1:4999/callback'],
        postLogoutRedirectUris,
      });
    const [registered, otherRegistered] = await Promise.all([
      register([AFTER_LOGOUT]),
      register(['http://127.0.0.1:4999/elsewhere']),
    ]);
    application = registered.body;
    otherApplication = otherRegistered.body;
    personId = await service.createUser({ name: 'Hinted Person' });
  });

  /** An ID token of the person for `application`, signed `secondsAgo` ago, living 5 minutes. */
  const idToken = (claims: Record<string, unknown> = {}, secondsAgo = 0) => {
    const at = nowSeconds() - secondsAgo;
    return signedByService(
      { typ: 'JWT' },
      {
        iss: decodeJwt(service.admin.token).iss,
        aud: application.id,
        sub: personId,
        org: service.organizationId,
        auth_time: at,
        iat: at,
        exp: at + 300,
        ...claims,
      },
    );
  };
  /** Logout without a session: a valid hint sends the browser back, any other is refused. */
  const logout = async (hint: string) => {
    const query = new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: AFTER_LOGOUT });
    const answer = await fetch(`${service.baseUrl}/oauth2/logout?${query}`, { redirect: 'manual' });
    return { status: answer.status, location: answer.headers.get('location'), page: await answer.text() };
  };
  const NOT_OURS = 'The id_token_hint is not an ID token of this service.';
  const NOT_REGISTERED = 'The post-logout redirect URI is not registered for this application.';

  it('accepts a hint signed with the service key, also expired within the session lifetime (positive controls)', async () => {
    expect(await logout(await idToken())).toMatchObject({ status: 303, location: AFTER_LOGOUT });
    expect(await logout(await idToken({}, 600))).toMatchObject({ status: 303, location: AFTER_LOGOUT });
  });

  it('refuses a hint of another issuer, signed with the service key', async () => {
    const refused = await logout(await idToken({ iss: ELSEWHERE }));
    expect(refused.status).toBe(400);
    expect(refused.page).toContain(NOT_OURS);
  });

  it('takes a hint expired for longer than a session lives as one of no live session, not as a foreign token', async () => {
    const lifetime = config().signIn.sessionAbsoluteSeconds;
    // Without a live session, signed out at once and back to the hint's registered URI, as fresh.
    expect(await logout(await idToken({}, lifetime + 300 + HOUR))).toMatchObject({
      status: 303,
      location: AFTER_LOGOUT,
    });
  });

  it('refuses a hint for another application (aud) back to this one address', async () => {
    const refused = await logout(await idToken({ aud: otherApplication.id }));
    expect(refused.status).toBe(400);
    expect(refused.page).toContain(NOT_REGISTERED);
  });
});
