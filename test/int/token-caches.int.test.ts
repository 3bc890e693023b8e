import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueClientToken } from '../../shared/auth/client-credentials.js';
import { unverifiedPayload } from '../../shared/auth/compact-jwt.js';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import { reloadConfig } from '../../shared/config.js';
import { deleteApiClient, rotateClientSecret } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { setRolePermissions } from '../../shared/store/role-repository.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';

useDatabase();

/** The token endpoint's caches as deployed (the other tests turn them off). */
beforeAll(async () => {
  await seedSystemData();
  process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '5';
  process.env.IDP_TOKEN_ACCESS_CACHE_SECONDS = '30';
  reloadConfig();
});
afterAll(() => {
  process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '0';
  process.env.IDP_TOKEN_ACCESS_CACHE_SECONDS = '0';
  reloadConfig();
});
// Only the clock moves: the DynamoDB calls keep their real timers.
beforeAll(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() }));
afterAll(() => vi.useRealTimers());
afterEach(() => vi.setSystemTime(Date.now()));

const permissionsIn = async (clientId: string, secret: string) =>
  (unverifiedPayload((await issueClientToken(clientId, secret)).accessToken) as { permissions: string[] })
    .permissions;

const refusal = (clientId: string, secret: string) =>
  issueClientToken(clientId, secret).then(
    () => 'issued',
    (error) => (error instanceof OAuthError ? error.error : Promise.reject(error)),
  );

describe('token endpoint caches', () => {
  it('a deleted client gets tokens for at most 5 s after the deletion', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret } = await createTestClient(org, []);
    await issueClientToken(clientId, clientSecret);
    await deleteApiClient(org, clientId, 'test');
    vi.advanceTimersByTime(4_000);
    expect(await refusal(clientId, clientSecret)).toBe('issued');
    vi.advanceTimersByTime(1_000);
    expect(await refusal(clientId, clientSecret)).toBe('invalid_client');
  });

  it('a rotated secret works at once, and the previous one stops exactly when its grace ends', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret: first } = await createTestClient(org, []);
    await issueClientToken(clientId, first);
    const { clientSecret: second } = await rotateClientSecret(org, clientId, 'test', 2, Date.now());
    expect(await refusal(clientId, second)).toBe('issued');
    expect(await refusal(clientId, first)).toBe('issued');
    vi.advanceTimersByTime(2_000);
    expect(await refusal(clientId, first)).toBe('invalid_client');
    expect(await refusal(clientId, second)).toBe('issued');
  });

  it('a change of permissions reaches new tokens within 30 s', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret, roleId } = await createTestClient(org, ['PERMISSIONS.LIST']);
    expect(await permissionsIn(clientId, clientSecret)).toEqual(['PERMISSIONS.LIST']);
    await setRolePermissions(org, roleId, ['ROLES.LIST']);
    vi.advanceTimersByTime(29_000);
    expect(await permissionsIn(clientId, clientSecret)).toEqual(['PERMISSIONS.LIST']);
    vi.advanceTimersByTime(1_000);
    expect(await permissionsIn(clientId, clientSecret)).toEqual(['ROLES.LIST']);
  });
});
