import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticateClient, issueClientToken } from '../../shared/auth/client-credentials.js';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import { config } from '../../shared/config.js';
import { changeApiClient, createApiClient } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { useDatabase } from '../support/database.js';
import { createTestOrganization } from '../support/records.js';
import { useTokenCaches } from '../support/token-caches.js';

/**
 * private_key_jwt against the store, with the token endpoint's caches as deployed and a clock the
 * test moves (test/e2e/private-key-jwt.e2e.test.ts has the protocol with openid-client): a
 * replaced key stops signing within a second, an assertion raced twice passes once, and a
 * secret never authenticates a client that signs assertions, whatever its record holds.
 */
useDatabase();
useTokenCaches();

let organizationId: string;
beforeAll(async () => {
  await seedSystemData();
  organizationId = (await createTestOrganization()).id;
});

const newKey = async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  const { x, y } = await exportJWK(publicKey);
  return { privateKey, kid, jwk: { kty: 'EC' as const, crv: 'P-256' as const, x, y, kid } };
};

const signed = (clientId: string, key: { privateKey: CryptoKey; kid: string }) =>
  new SignJWT({
    iss: clientId,
    sub: clientId,
    aud: config().publicOrigin,
    jti: randomUUID(),
    exp: Math.floor(Date.now() / 1000) + 60,
  })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .sign(key.privateKey);

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => {
      if (!(error instanceof OAuthError)) throw error;
      return error.status;
    },
  );

const signingClient = async (jwk: Awaited<ReturnType<typeof newKey>>['jwk']) =>
  createApiClient({
    organizationId,
    name: 'Signing client',
    clientType: 'STANDARD',
    roles: [],
    policies: [],
    createdBy: 'test',
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [jwk] },
  });

describe('a private_key_jwt client with the caches on', () => {
  it('stops taking a replaced key within a second of the change, and takes the new one', async () => {
    const [first, next] = await Promise.all([newKey(), newKey()]);
    const client = await signingClient(first.jwk);
    expect(await outcome(issueClientToken(client.id, { assertion: await signed(client.id, first) }))).toBe(
      'accepted',
    );
    await changeApiClient(organizationId, client.id, { jwks: { keys: [next.jwk] } }, 'test');
    vi.setSystemTime(Date.now() + 1001);
    expect(await outcome(issueClientToken(client.id, { assertion: await signed(client.id, first) }))).toBe(
      401,
    );
    expect(await outcome(issueClientToken(client.id, { assertion: await signed(client.id, next) }))).toBe(
      'accepted',
    );
  });

  it('takes an assertion sent twice at once exactly once', async () => {
    const key = await newKey();
    const client = await signingClient(key.jwk);
    const assertion = await signed(client.id, key);
    const raced = await Promise.all([0, 1, 2].map(() => outcome(issueClientToken(client.id, { assertion }))));
    expect(raced.sort()).toEqual([401, 401, 'accepted']);
  });

  it('takes no secret, even one its record holds', async () => {
    const key = await newKey();
    const client = await signingClient(key.jwk);
    // A record holding a secret as well (written by hand: the service stores none for it).
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiClient(client.id),
        UpdateExpression: 'SET clientSecret = :secret',
        ExpressionAttributeValues: { ':secret': 'held-secret' },
      }),
    );
    vi.setSystemTime(Date.now() + 6000);
    expect(await outcome(authenticateClient(client.id, 'held-secret'))).toBe(401);
    // Positive control: the same record as a client with a secret takes it.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiClient(client.id),
        UpdateExpression: 'REMOVE tokenEndpointAuthMethod, jwks',
      }),
    );
    vi.setSystemTime(Date.now() + 6000);
    expect(await outcome(authenticateClient(client.id, 'held-secret'))).toBe('accepted');
  });
});
