import { generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTrail } from '../support/audit.js';
import { useService } from '../support/service.js';
import {
  type Application,
  exchange,
  PASSWORD,
  personWithPassword,
  REDIRECT,
  registerApplication,
  relyingParty,
  signIn,
} from '../support/sign-in-flow.js';

/**
 * private_key_jwt (OpenID Connect Core 9, RFC 7523, RFC 10070): clients register public keys and
 * prove themselves with assertions they sign. openid-client is the application; the refusals
 * are assertions made with jose, each a valid one changed in the one thing the check looks at.
 */
const service = useService();

interface KeyPair {
  privateKey: CryptoKey;
  jwk: JWK;
  kid: string;
}

const newKey = async (alg: 'ES256' | 'RS256' = 'ES256'): Promise<KeyPair> => {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
};

const issuer = () => service.baseUrl;

/** An assertion of `clientId` signed with `key`; `claims` and `header` change what a valid one holds. */
/** The claims of a valid assertion of `clientId`, with a `jti` of its own. */
const claimsOf = (clientId: string) => {
  const now = Math.floor(Date.now() / 1000);
  return { iss: clientId, sub: clientId, aud: issuer(), jti: randomUUID(), exp: now + 60, iat: now };
};

const assertion = (
  clientId: string,
  key: KeyPair,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
) =>
  new SignJWT({ ...claimsOf(clientId), ...claims })
    .setProtectedHeader({
      alg: String(key.jwk.alg),
      kid: key.kid,
      typ: 'client-authentication+jwt',
      ...header,
    })
    .sign(key.privateKey);

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A valid assertion signed by hand with Node's crypto (`header` names the alg): jose refuses to
 * make some of the tokens the refusals need (an unknown `crit`, an alg that does not fit the key).
 */
const handSigned = (clientId: string, key: KeyPair, header: Record<string, unknown>) => {
  const input = `${part({ kid: key.kid, ...header })}.${part(claimsOf(clientId))}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: KeyObject.from(key.privateKey),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
};

const postToken = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });

/** A client credentials request authenticated by `signed`. */
const withAssertion = (signed: string, extra: Record<string, string> = {}) =>
  postToken({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: signed,
    ...extra,
  });

const answerOf = async (response: Response): Promise<Record<string, unknown>> => ({
  status: response.status,
  ...((await response.json()) as Record<string, unknown>),
});

let apiClient: { id: string };
let apiKey: KeyPair;

beforeAll(async () => {
  apiKey = await newKey();
  const created = await service.call<{ id: string; clientSecret: string }>('POST', '/idp/clients', {
    token: service.admin.token,
    body: {
      name: 'Signing service',
      clientType: 'STANDARD',
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [apiKey.jwk] },
    },
  });
  expect(created.status).toBe(201);
  // Nothing to keep secret: the client holds its private key, the service only the public one.
  expect(created.body.clientSecret).toBe('');
  apiClient = created.body;
});

describe('an API client with private_key_jwt', () => {
  it('gets a token with openid-client signing its assertions, and shows its keys in its details', async () => {
    const rp = await oidc.discovery(
      new URL(service.baseUrl),
      apiClient.id,
      undefined,
      oidc.PrivateKeyJwt({ key: apiKey.privateKey, kid: apiKey.kid }),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
    const metadata = rp.serverMetadata();
    expect(metadata.token_endpoint_auth_methods_supported).toContain('private_key_jwt');
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toContain('ES256');
    const token = await oidc.clientCredentialsGrant(rp);
    expect(token.token_type.toLowerCase()).toBe('bearer');
    const details = await service.call<Record<string, unknown>>('GET', `/idp/clients/${apiClient.id}`, {
      token: service.admin.token,
    });
    expect(details.body).toMatchObject({
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [apiKey.jwk] },
    });
  });

  it('has no secret to rotate', async () => {
    const rotated = await service.call('POST', `/idp/clients/${apiClient.id}/rotateSecret`, {
      token: service.admin.token,
    });
    expect(rotated.status).toBe(409);
  });

  it('accepts an assertion once: the same one again is refused', async () => {
    const signed = await assertion(apiClient.id, apiKey);
    expect((await withAssertion(signed)).status).toBe(200);
    expect(await answerOf(await withAssertion(signed))).toEqual({
      status: 401,
      error: 'invalid_client',
      error_description: 'The client assertion was used before (jti)',
    });
  });

  it('refuses an assertion signed with a key it did not register, under its key id', async () => {
    const attacker = await newKey();
    expect((await withAssertion(await assertion(apiClient.id, apiKey))).status).toBe(200);
    const forged = await assertion(apiClient.id, { ...attacker, kid: apiKey.kid });
    expect(await answerOf(await withAssertion(forged))).toMatchObject({
      status: 401,
      error: 'invalid_client',
      error_description: 'Client authentication failed',
    });
  });

  it('refuses an HMAC assertion keyed with its public key', async () => {
    expect((await withAssertion(await assertion(apiClient.id, apiKey))).status).toBe(200);
    const forged = await new SignJWT(claimsOf(apiClient.id))
      .setProtectedHeader({ alg: 'HS256', kid: apiKey.kid })
      .sign(new TextEncoder().encode(JSON.stringify(apiKey.jwk)));
    expect(await answerOf(await withAssertion(forged))).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
  });

  it.each([
    [
      'the token endpoint as audience (RFC 10070 allows the issuer only)',
      () => ({ aud: `${issuer()}/oauth2/token` }),
      /aud must be this server's issuer/,
    ],
    ['the issuer inside an array', () => ({ aud: [issuer()] }), /aud must be this server's issuer/],
    ['another server as audience', () => ({ aud: 'https://other.example' }), /aud must be/],
    [
      'an expiry further than ten minutes ahead',
      () => ({ exp: Math.floor(Date.now() / 1000) + 3600 }),
      /exp may be at most 600 seconds ahead/,
    ],
    ['no jti', () => ({ jti: undefined }), /jti is required/],
    ['an expired assertion', () => ({ exp: Math.floor(Date.now() / 1000) - 5 }), /exp has passed/],
    [
      'another issuer than the client, quoted',
      () => ({ iss: 'someone "else"' }),
      /^Client assertion refused: iss and sub must be the client_id$/,
    ],
  ])('refuses an assertion with %s', async (_case, change, description) => {
    expect((await withAssertion(await assertion(apiClient.id, apiKey))).status).toBe(200);
    const answer = await answerOf(await withAssertion(await assertion(apiClient.id, apiKey, change())));
    expect(answer).toMatchObject({ status: 401, error: 'invalid_client' });
    expect(String(answer.error_description)).toMatch(description);
  });

  it('refuses an unsigned assertion, one naming an extension, and one not valid yet', async () => {
    expect((await withAssertion(await assertion(apiClient.id, apiKey))).status).toBe(200);
    const unsigned = `${part({ alg: 'none', kid: apiKey.kid })}.${part(claimsOf(apiClient.id))}.`;
    expect(await answerOf(await withAssertion(unsigned))).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
    expect((await withAssertion(handSigned(apiClient.id, apiKey, { alg: 'ES256' }))).status).toBe(200);
    const critical = handSigned(apiClient.id, apiKey, {
      alg: 'ES256',
      crit: ['urn:example:ext'],
      'urn:example:ext': 1,
    });
    expect(await answerOf(await withAssertion(critical))).toMatchObject({
      status: 401,
      error: 'invalid_client',
      error_description: expect.stringMatching(/crit/),
    });
    const early = await assertion(apiClient.id, apiKey, { nbf: Math.floor(Date.now() / 1000) + 120 });
    expect(await answerOf(await withAssertion(early))).toMatchObject({
      status: 401,
      error: 'invalid_client',
      error_description: 'Client assertion refused: nbf has not come yet',
    });
  });

  it('takes the one key without kid, but with several keys needs the kid, and an alg that fits the key', async () => {
    const [ec, rsa] = [await newKey(), await newKey('RS256')];
    // Keys registered without alg: only the key type says which algorithms they verify.
    const withoutAlg = ({ alg: _alg, ...jwk }: JWK) => jwk;
    const created = await service.call<{ id: string }>('POST', '/idp/clients', {
      token: service.admin.token,
      body: {
        name: 'Two keys',
        clientType: 'STANDARD',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [withoutAlg(ec.jwk), withoutAlg(rsa.jwk)] },
      },
    });
    const id = created.body.id;
    expect((await withAssertion(await assertion(id, ec))).status).toBe(200);
    const unnamed = await new SignJWT(claimsOf(id)).setProtectedHeader({ alg: 'ES256' }).sign(ec.privateKey);
    expect(await answerOf(await withAssertion(unnamed))).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
    // An RS256 signature under its own alg passes; labelled ES256, the key's type refuses it.
    expect((await withAssertion(handSigned(id, rsa, { alg: 'RS256' }))).status).toBe(200);
    expect(await answerOf(await withAssertion(handSigned(id, rsa, { alg: 'ES256' })))).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
  });

  it('refuses an assertion typed as another kind of token', async () => {
    expect((await withAssertion(await assertion(apiClient.id, apiKey, {}, { typ: 'JWT' }))).status).toBe(200);
    const answer = await answerOf(
      await withAssertion(await assertion(apiClient.id, apiKey, {}, { typ: 'at+jwt' })),
    );
    expect(answer).toMatchObject({
      status: 401,
      error: 'invalid_client',
      error_description: expect.stringMatching(/typ must be/),
    });
  });

  it('refuses a client_id other than the one the assertion names, and a second method beside it', async () => {
    expect(
      (await withAssertion(await assertion(apiClient.id, apiKey), { client_id: apiClient.id })).status,
    ).toBe(200);
    expect(
      await answerOf(
        await withAssertion(await assertion(apiClient.id, apiKey), { client_id: 'another-client' }),
      ),
    ).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
    const basic = { authorization: `Basic ${Buffer.from(`${apiClient.id}:x`).toString('base64')}` };
    const both = await postToken(
      {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(apiClient.id, apiKey),
      },
      basic,
    );
    expect(await answerOf(both)).toMatchObject({
      status: 400,
      error: 'invalid_request',
      error_description: 'Use one client authentication method, not two',
    });
  });

  it('lets no secret stand in for its assertion', async () => {
    expect(
      await answerOf(
        await postToken({
          grant_type: 'client_credentials',
          client_id: apiClient.id,
          client_secret: 'anything',
        }),
      ),
    ).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
  });

  it('takes a new key set at once: the new key signs in, the replaced one no longer', async () => {
    const next = await newKey('RS256');
    const own = await service.call<{ id: string }>('POST', '/idp/clients', {
      token: service.admin.token,
      body: {
        name: 'Rotating service',
        clientType: 'STANDARD',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [apiKey.jwk] },
      },
    });
    expect((await withAssertion(await assertion(own.body.id, apiKey))).status).toBe(200);
    const changed = await service.call('PATCH', `/idp/clients/${own.body.id}`, {
      token: service.admin.token,
      body: { jwks: { keys: [next.jwk] } },
    });
    expect(changed.status).toBe(200);
    expect((await withAssertion(await assertion(own.body.id, next))).status).toBe(200);
    expect(await answerOf(await withAssertion(await assertion(own.body.id, apiKey)))).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
    const [record] = await auditTrail(service.organizationId, {
      action: 'client.updated',
      targetId: own.body.id,
    });
    expect(record?.changes).toMatchObject({
      jwks: { from: { keys: [apiKey.jwk] }, to: { keys: [next.jwk] } },
    });
  });
});

describe('an application with private_key_jwt', () => {
  let application: Application;
  let key: KeyPair;
  let rp: oidc.Configuration;

  beforeAll(async () => {
    key = await newKey('RS256');
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [key.jwk] },
    });
    expect(registered.status).toBe(201);
    application = registered.body;
    rp = await relyingParty(service, application, oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }));
  });

  it('exchanges its code, refreshes, introspects, pushes requests and revokes with assertions', async () => {
    const person = await personWithPassword(service, 'signed-assertions');
    const flow = await signIn(service, rp, {
      email: person.email,
      password: PASSWORD,
      extra: { scope: 'openid offline_access' },
    });
    const tokens = await exchange(rp, flow);
    expect(tokens.claims()?.sub).toBe(person.id);
    const refreshed = await oidc.refreshTokenGrant(rp, tokens.refresh_token as string);
    expect(refreshed.access_token).toBeTruthy();
    const introspected = await oidc.tokenIntrospection(rp, refreshed.access_token);
    expect(introspected.active).toBe(true);
    const pushed = await oidc.buildAuthorizationUrlWithPAR(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    expect(pushed.searchParams.get('request_uri')).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    await oidc.tokenRevocation(rp, refreshed.refresh_token as string);
    await expect(oidc.refreshTokenGrant(rp, refreshed.refresh_token as string)).rejects.toThrow();
  });

  it.each([
    [
      '/oauth2/par',
      {
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      },
      201,
    ],
    ['/oauth2/introspect', { token: 'not-a-token' }, 200],
    ['/oauth2/revoke', { token: 'not-a-token' }, 200],
  ])(
    'refuses a replayed or foreign assertion at %s, where its first use passes',
    async (path, form, status) => {
      const post = (assertion: string) =>
        fetch(`${service.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...form,
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: assertion,
          }),
        });
      const signed = await assertion(application.id, key);
      expect((await post(signed)).status).toBe(status);
      expect(await answerOf(await post(signed))).toMatchObject({ status: 401, error: 'invalid_client' });
      const stranger = await newKey('RS256');
      expect(
        await answerOf(await post(await assertion(application.id, { ...stranger, kid: key.kid }))),
      ).toMatchObject({
        status: 401,
        error: 'invalid_client',
      });
    },
  );

  it('refuses its secret-less client id alone, and an application with a secret refuses assertions', async () => {
    expect(
      await answerOf(
        await postToken({
          grant_type: 'authorization_code',
          code: 'x',
          client_id: application.id,
          redirect_uri: REDIRECT,
        }),
      ),
    ).toMatchObject({
      status: 401,
      error: 'invalid_client',
    });
    const withSecret = (
      await registerApplication(service, { flowType: 'authorization_code', redirectUris: [REDIRECT] })
    ).body;
    const answer = await answerOf(
      await postToken({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: REDIRECT,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertion(withSecret.id, key),
      }),
    );
    expect(answer).toMatchObject({ status: 401, error: 'invalid_client' });
  });
});

describe('registering keys', () => {
  const register = (body: Record<string, unknown>, token = service.admin.token) =>
    service.call<{ errors?: unknown }>('POST', '/idp/clients', {
      token,
      body: { name: 'Keys', clientType: 'STANDARD', ...body },
    });

  it('refuses a private key, a short RSA key, no keys, keys beside a secret, and a method an API client cannot use', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const good = await newKey();
    expect(
      (await register({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [good.jwk] } })).status,
    ).toBe(201);
    for (const body of [
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [privateJwk] } },
      {
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [weak.publicKey.export({ format: 'jwk' })] },
      },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [] } },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...good.jwk, x: 'AAAA' }] } },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ kty: 'RSA', n: 'AAAAA', e: 'AQAB' }] } },
      { tokenEndpointAuthMethod: 'private_key_jwt' },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...good.jwk, kty: 'constructor' }] } },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [{ ...good.jwk, alg: 'RS256' }] } },
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [good.jwk, { ...good.jwk }] } },
      { jwks: { keys: [good.jwk] } },
      { tokenEndpointAuthMethod: 'none' },
    ]) {
      const refused = await register(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
  });

  it("changes keys only of a private_key_jwt client, and never another organization's", async () => {
    const other = await service.freshOrganization();
    const key = await newKey();
    const theirs = await register(
      { tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [key.jwk] } },
      other.token,
    );
    expect(theirs.status).toBe(201);
    const theirId = (theirs.body as unknown as { id: string }).id;
    const own = await service.call('PATCH', `/idp/clients/${theirId}`, {
      token: other.token,
      body: { jwks: { keys: [key.jwk] } },
    });
    expect(own.status).toBe(200);
    const across = await service.call('PATCH', `/idp/clients/${theirId}`, {
      token: service.admin.token,
      body: { jwks: { keys: [apiKey.jwk] } },
    });
    expect(across.status).toBe(404);
    const secretClient = await register({});
    const keysOnSecret = await service.call(
      'PATCH',
      `/idp/clients/${(secretClient.body as unknown as { id: string }).id}`,
      {
        token: service.admin.token,
        body: { jwks: { keys: [key.jwk] } },
      },
    );
    expect(keysOnSecret.status).toBe(400);
    // Their client's assertion is theirs alone: it names their client, which our keys do not sign for.
    expect(await answerOf(await withAssertion(await assertion(theirId, apiKey)))).toMatchObject({
      status: 401,
    });
    expect((await withAssertion(await assertion(theirId, key))).status).toBe(200);
  });
});
