import { decodeJwt } from 'jose';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  authenticateApplication,
  authenticateClient,
  issueClientToken,
} from '../../shared/auth/client-credentials.js';
import { resolveAccess } from '../../shared/auth/grant-resolution.js';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import type { ClientAuthMethod } from '../../shared/auth/token-request.js';
import { reloadConfig } from '../../shared/config.js';
import { createApiClient } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { createPolicy } from '../../shared/store/policy-repository.js';
import { useDatabase } from '../support/database.js';
import { createTestApplication, createTestClient, createTestOrganization } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * Client authentication at the token endpoint (shared/auth/client-credentials.ts): which client
 * a secret authenticates, by which method, for which grant and from which address. The caches
 * are off (vitest.config.ts) unless a test turns them on; test/int/token-caches.int.test.ts tests
 * them as deployed. Each refusal starts from the same request done right.
 */

// Which grants are read, observed: a refused client's must not be.
vi.mock('../../shared/auth/grant-resolution.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/auth/grant-resolution.js')>();
  return { resolveAccess: vi.fn(actual.resolveAccess) };
});

useDatabase();

let organizationId: string;
beforeAll(async () => {
  await seedSystemData();
  organizationId = (await createTestOrganization()).id;
});

afterEach(() => {
  vi.mocked(resolveAccess).mockClear();
  process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '0';
  reloadConfig();
});

/** The OAuth error a promise is refused with. */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: unknown) => {
      if (!(error instanceof OAuthError)) throw error;
      return { status: error.status, error: error.error, description: error.description };
    },
  );

/** An application people sign in to, confidential unless told otherwise. */
const application = (tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'none') =>
  createTestApplication(organizationId, {
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod,
  });

const claimsOf = async (token: Promise<{ accessToken: string }>) => decodeJwt((await token).accessToken);

describe('the client credentials grant', () => {
  it('issues a token to an API client with its secret, and refuses another secret', async () => {
    const { clientId, clientSecret } = await createTestClient(organizationId, ['PERMISSIONS.LIST']);
    expect((await claimsOf(issueClientToken(clientId, clientSecret))).permissions).toEqual([
      'PERMISSIONS.LIST',
    ]);
    expect(await refusal(issueClientToken(clientId, `${clientSecret}x`))).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'Client authentication failed',
    });
    expect(await refusal(issueClientToken('no-such-client', clientSecret))).toMatchObject({ status: 401 });
  });

  it('refuses an application people sign in to, though its secret is right', async () => {
    const app = await application('client_secret_basic');
    const { clientId, clientSecret } = await createTestClient(organizationId, []);
    expect(await refusal(issueClientToken(clientId, clientSecret))).toBe('accepted');
    expect(await refusal(issueClientToken(app.id, app.clientSecret))).toEqual({
      status: 400,
      error: 'unauthorized_client',
      description: 'An application people sign in to uses the authorization_code grant',
    });
  });

  it('issues tokens from the addresses the client registered only', async () => {
    const client = await createApiClient({
      organizationId,
      name: 'From the office',
      clientType: 'STANDARD',
      roles: [],
      policies: [],
      createdBy: 'test',
      remoteAddresses: ['203.0.113.0/24'],
    });
    expect(
      await refusal(issueClientToken(client.id, client.clientSecret, undefined, Date.now(), '203.0.113.9')),
    ).toBe('accepted');
    expect(
      await refusal(issueClientToken(client.id, client.clientSecret, undefined, Date.now(), '198.51.100.1')),
    ).toEqual({
      status: 400,
      error: 'unauthorized_client',
      description: 'The client may not use its credentials from this address',
    });
    // The address is API Gateway's; without one (a call in process) there is nothing to check.
    expect(await refusal(issueClientToken(client.id, client.clientSecret))).toBe('accepted');
  });

  it("puts a RESTRICTED client's live policies in its token", async () => {
    const policy = await createPolicy({ organizationId, name: 'Only here', createdBy: 'test' });
    const restricted = await createApiClient({
      organizationId,
      name: 'Restricted',
      clientType: 'RESTRICTED',
      roles: [],
      policies: [policy.id],
      createdBy: 'test',
    });
    const claims = await claimsOf(issueClientToken(restricted.id, restricted.clientSecret));
    expect(claims).toMatchObject({ user_type: 'RESTRICTED', policies: [policy.id] });
  });
});

describe('an application at the token endpoint', () => {
  it('authenticates with its secret by the method it registered, and no other', async () => {
    const basic = await application('client_secret_basic');
    const post = await application('client_secret_post');
    const presented = (app: typeof basic, method: ClientAuthMethod, secret = app.clientSecret) =>
      refusal(authenticateApplication({ clientId: app.id, clientSecret: secret, method }));
    expect(await presented(basic, 'client_secret_basic')).toBe('accepted');
    expect(await presented(post, 'client_secret_post')).toBe('accepted');
    expect(await presented(basic, 'client_secret_post')).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'The client authenticates with client_secret_basic',
    });
    expect(await presented(post, 'client_secret_basic')).toMatchObject({
      description: 'The client authenticates with client_secret_post',
    });
    expect(await presented(basic, 'client_secret_basic', 'wrong')).toMatchObject({ status: 401 });
  });

  it('is refused without its secret unless it is public', async () => {
    const confidential = await application('client_secret_basic');
    const publicApp = await application('none');
    expect(await refusal(authenticateApplication({ clientId: publicApp.id, method: 'none' }))).toBe(
      'accepted',
    );
    expect(await refusal(authenticateApplication({ clientId: confidential.id, method: 'none' }))).toEqual({
      status: 401,
      error: 'invalid_client',
      description: 'Client authentication failed',
    });
    expect(
      await refusal(authenticateApplication({ clientId: 'no-such-client', method: 'none' })),
    ).toMatchObject({
      status: 401,
    });
    // A public application has no secret: whatever is presented as one authenticates nothing.
    for (const secret of ['', 'anything']) {
      expect(await refusal(authenticateClient(publicApp.id, secret))).toMatchObject({ status: 401 });
    }
  });

  it('is refused for an API client, which uses the client credentials grant', async () => {
    const { clientId, clientSecret } = await createTestClient(organizationId, []);
    expect(
      await refusal(authenticateApplication({ clientId, clientSecret, method: 'client_secret_basic' })),
    ).toEqual({
      status: 400,
      error: 'unauthorized_client',
      description: 'An API client uses the client_credentials grant',
    });
  });
});

describe('reads', () => {
  // One instant for the whole test: the organization's access versions are read again once a
  // second, and on a loaded machine a second can pass between two requests.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('with the caches off, a token reads the client once, right secret or wrong', async () => {
    const { clientId, clientSecret } = await createTestClient(organizationId, ['PERMISSIONS.LIST']);
    await issueClientToken(clientId, clientSecret);
    const issued = await measureRoundTrips('caches off', () => issueClientToken(clientId, clientSecret));
    expect(issued.commands.filter((command) => command === 'GetCommand')).toHaveLength(1);
    const refused = await measureRoundTrips('wrong secret', () =>
      refusal(issueClientToken(clientId, 'wrong')),
    );
    expect(refused.commands).toEqual(['GetCommand']);
  });

  it('with the caches on, a wrong secret reads the client again, and none of its grants', async () => {
    process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '5';
    reloadConfig();
    const { clientId, clientSecret } = await createTestClient(organizationId, ['PERMISSIONS.LIST']);
    await issueClientToken(clientId, clientSecret);
    vi.mocked(resolveAccess).mockClear();
    const refused = await measureRoundTrips('wrong secret', () =>
      refusal(issueClientToken(clientId, 'wrong')),
    );
    expect(refused.result).toMatchObject({ status: 401 });
    expect(refused.commands.filter((command) => command === 'GetCommand')).toHaveLength(1);
    expect(vi.mocked(resolveAccess)).not.toHaveBeenCalled();
  });

  it("with the caches on, reads none of an application's grants at the client credentials grant", async () => {
    process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '5';
    reloadConfig();
    const app = await application('client_secret_basic');
    await refusal(issueClientToken(app.id, app.clientSecret));
    expect(await refusal(issueClientToken(app.id, app.clientSecret))).toMatchObject({
      error: 'unauthorized_client',
    });
    expect(vi.mocked(resolveAccess)).not.toHaveBeenCalled();
  });

  it('with the caches on, an unknown client id is read twice at most', async () => {
    process.env.IDP_TOKEN_CLIENT_CACHE_SECONDS = '5';
    reloadConfig();
    const unknown = `unknown-${Date.now()}`;
    // The reads of this client only: another test's background read may land in the window.
    const reads = async () =>
      (await measureRoundTrips('unknown client', () => refusal(issueClientToken(unknown, 's')))).recorded
        .filter((call) => JSON.stringify(call.input).includes(unknown))
        .map((call) => call.command);
    // A refused client is read again (so a rotation counts at once), here right after the first read;
    // the next time, the miss is remembered and only that second read remains.
    expect(await reads()).toEqual(['GetCommand', 'GetCommand']);
    expect(await reads()).toEqual(['GetCommand']);
  });
});
