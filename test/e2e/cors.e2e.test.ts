import { describe, expect, it } from 'vitest';
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

describe('CORS for browser applications', () => {
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
