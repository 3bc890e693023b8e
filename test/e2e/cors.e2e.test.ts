import { describe, expect, it } from 'vitest';
import { db, dynamoDbClient } from '../../shared/store/dynamo.js';
import { useService } from '../support/service.js';
import { registerApplication } from '../support/sign-in-flow.js';

// An operator's extra origin, and no cache, so a deleted application's origin is refused at once.
process.env.IDP_CORS_ORIGINS = 'https://console.example.com';
process.env.IDP_CORS_CACHE_SECONDS = '0';

const service = useService();

const APP_ORIGIN = 'https://app.example.org';

const preflight = (path: string, origin: string) =>
  fetch(`${service.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

/**
 * DynamoDB's cap on a partition key in a Query's key condition (2,048 bytes), which DynamoDB
 * Local does not enforce: put in front of the service's clients while `run` runs.
 */
const withDynamoDbKeySizeRule = async <T>(run: () => Promise<T>): Promise<T> => {
  const name = 'partitionKeySizeRule';
  const stacks = new Set([dynamoDbClient().middlewareStack, db().middlewareStack]);
  for (const stack of stacks)
    stack.add(
      (next, context) => async (args) => {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
          .ExpressionAttributeValues;
        if (context.commandName === 'QueryCommand')
          for (const value of Object.values(values ?? {})) {
            const text = typeof value === 'string' ? value : (value as { S?: unknown } | undefined)?.S;
            if (typeof text === 'string' && Buffer.byteLength(text) > 2048)
              throw Object.assign(
                new Error('Size of hashkey has exceeded the maximum size limit of 2048 bytes'),
                {
                  name: 'ValidationException',
                },
              );
          }
        return next(args);
      },
      { step: 'initialize', name },
    );
  try {
    return await run();
  } finally {
    for (const stack of stacks) stack.remove(name);
  }
};

describe('CORS for browser applications', () => {
  it('refuses a preflight from an origin longer than any registered one (403, not a 500 from its lookup)', async () => {
    await service.call('GET', '/idp/permissions', { token: service.admin.token });
    const long = `https://${'a'.repeat(2100)}.example`;
    expect(new URL(long).origin).toBe(long);
    const [known, refused] = await withDynamoDbKeySizeRule(async () => [
      // Positive control: an origin no application registered, looked up and refused.
      await preflight('/idp/permissions', 'https://unknown.example'),
      await preflight('/idp/permissions', long),
    ]);
    expect([known.status, refused.status]).toEqual([403, 403]);
  });

  it('answers preflights for a registered application origin on the API and the OAuth endpoints', async () => {
    const app = await registerApplication(service, {
      flowType: 'authorization_code',
      redirectUris: [`${APP_ORIGIN}/callback`, `${APP_ORIGIN}/other`],
      tokenEndpointAuthMethod: 'none',
    });
    expect(app.status).toBe(201);
    for (const path of [
      '/idp/permissions',
      '/oauth2/token',
      '/oauth2/userinfo',
      '/oauth2/revoke',
      '/idp/users/x/roles',
    ]) {
      const answer = await preflight(path, APP_ORIGIN);
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
      expect(answer.headers.get('access-control-allow-headers')).toContain('authorization');
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      expect(answer.headers.get('vary')).toContain('origin');
    }

    const call = await fetch(`${service.baseUrl}/idp/permissions`, {
      headers: { origin: APP_ORIGIN, authorization: `Bearer ${service.admin.token}` },
    });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(call.headers.get('access-control-expose-headers')).toContain('link');
    expect(call.headers.get('access-control-allow-credentials')).toBeNull();

    await service.call('DELETE', `/idp/clients/${app.body.id}`, { token: service.admin.token });
    expect((await preflight('/idp/permissions', APP_ORIGIN)).status).toBe(403);
  });

  it('allows the operator-configured origin and refuses any other, never with a wildcard', async () => {
    const configured = await preflight('/idp/permissions', 'https://console.example.com');
    expect(configured.headers.get('access-control-allow-origin')).toBe('https://console.example.com');
    for (const origin of ['https://evil.example', 'null', 'https://console.example.com.evil.example']) {
      const refused = await preflight('/idp/permissions', origin);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const call = await fetch(`${service.baseUrl}/idp/permissions`, {
        headers: { origin, authorization: `Bearer ${service.admin.token}` },
      });
      expect(call.headers.get('access-control-allow-origin')).toBeNull();
    }
    const document = await fetch(`${service.baseUrl}/.well-known/openid-configuration`, {
      headers: { origin: 'https://anyone.example' },
    });
    expect(document.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers every origin on public documents only: SCIM, for servers, answers none', async () => {
    const from = (path: string) =>
      fetch(`${service.baseUrl}${path}`, {
        headers: { origin: 'https://elsewhere.example', authorization: `Bearer ${service.admin.token}` },
      });
    // Positive control: a public document may be read from any page.
    const discovery = await from('/.well-known/openid-configuration');
    expect(discovery.headers.get('access-control-allow-origin')).toBe('*');
    const scim = await from('/scim/v2/Users');
    expect(scim.status).toBe(200);
    expect(scim.headers.get('access-control-allow-origin')).toBeNull();
  });
});
