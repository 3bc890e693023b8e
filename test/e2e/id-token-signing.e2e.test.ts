import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { useService } from '../support/service.js';
import {
  type Application,
  exchange,
  newApplication,
  personWithPassword,
  REDIRECT,
  registerApplication,
  signIn,
} from '../support/sign-in-flow.js';

/**
 * ID tokens are signed with what the application registered (OpenID Connect Registration's
 * `id_token_signed_response_alg`): RS256 unless it asks for ES256, and ES256 for applications
 * registered before RS256 was offered. openid-client is the relying party, told which algorithm
 * to expect, as most relying-party libraries are (and expect RS256 when not told).
 */
const service = useService();
let email: string;

beforeAll(async () => {
  ({ email } = await personWithPassword(service, 'id-token'));
});

/** An application's relying party that accepts ID tokens signed with `alg` only. */
const expecting = (application: Application, alg: string) =>
  oidc.discovery(
    new URL(service.baseUrl),
    application.id,
    { client_secret: application.clientSecret, id_token_signed_response_alg: alg },
    oidc.ClientSecretBasic(application.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );

const signedInThrough = async (configuration: oidc.Configuration) =>
  exchange(configuration, await signIn(service, configuration, { email }));

const algorithmOf = (token: string | undefined) => decodeProtectedHeader(token ?? '').alg;

const registeredAlgorithmOf = async (application: Application) =>
  (
    await service.call<{ idTokenSignedResponseAlg?: string }>('GET', `/idp/clients/${application.id}`, {
      token: service.admin.token,
    })
  ).body.idTokenSignedResponseAlg;

describe('ID token signing algorithms', () => {
  it('offers RS256 and ES256, and publishes a public key of each', async () => {
    const metadata = (await expecting(await newApplication(service), 'RS256')).serverMetadata();
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    const jwks = (await (await fetch(metadata.jwks_uri as string)).json()) as {
      keys: Record<string, string>[];
    };
    expect(jwks.keys.map(({ kty, alg, use }) => ({ kty, alg, use }))).toEqual([
      { kty: 'RSA', alg: 'RS256', use: 'sig' },
      { kty: 'EC', alg: 'ES256', use: 'sig' },
    ]);
    const privateParts = ['d', 'p', 'q', 'dp', 'dq', 'qi'];
    expect(jwks.keys.flatMap((key) => privateParts.filter((part) => part in key))).toEqual([]);
  });

  it("signs a new application's ID tokens with RS256, at the exchange and at each refresh", async () => {
    const application = await newApplication(service);
    expect(await registeredAlgorithmOf(application)).toBe('RS256');
    const configuration = await expecting(application, 'RS256');
    const tokens = await signedInThrough(configuration);
    expect(algorithmOf(tokens.id_token)).toBe('RS256');
    const jwks = createRemoteJWKSet(new URL(configuration.serverMetadata().jwks_uri as string));
    await jwtVerify(tokens.id_token as string, jwks, { issuer: service.baseUrl, audience: application.id });
    // Access tokens stay ES256: API Gateway's JWT authorizer and the service verify them.
    expect(algorithmOf(tokens.access_token)).toBe('ES256');
    const refreshed = await oidc.refreshTokenGrant(configuration, tokens.refresh_token as string);
    expect(algorithmOf(refreshed.id_token)).toBe('RS256');
  });

  it('signs with ES256 for an application registered for it, which an RS256 relying party refuses', async () => {
    const registered = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [REDIRECT],
      idTokenSignedResponseAlg: 'ES256',
    });
    expect(registered.status).toBe(201);
    const application = registered.body;
    const tokens = await signedInThrough(await expecting(application, 'ES256'));
    expect(algorithmOf(tokens.id_token)).toBe('ES256');
    // What the default spares the relying parties that expect RS256 unless told otherwise.
    const refusal = await signedInThrough(await expecting(application, 'RS256')).catch(
      (error: Error) => error,
    );
    expect(refusal).toMatchObject({ cause: { message: 'unexpected JWT "alg" header parameter' } });
  });

  it('keeps ES256 for an application registered before RS256 was offered', async () => {
    const application = await newApplication(service);
    // Registered before: its item has no algorithm.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiClient(application.id),
        UpdateExpression: 'REMOVE idTokenSignedResponseAlg',
      }),
    );
    expect(await registeredAlgorithmOf(application)).toBe('ES256');
    const tokens = await signedInThrough(await expecting(application, 'ES256'));
    expect(algorithmOf(tokens.id_token)).toBe('ES256');
  });

  it.each([
    [{ flowType: 'authorization_code', redirectUris: [REDIRECT], idTokenSignedResponseAlg: 'HS256' }],
    [{ flowType: 'authorization_code', redirectUris: [REDIRECT], idTokenSignedResponseAlg: 'none' }],
    [{ idTokenSignedResponseAlg: 'RS256' }],
  ])('refuses %j with a 400 naming the field', async (body) => {
    const refused = await registerApplication(service, body);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('idTokenSignedResponseAlg');
  });
});
