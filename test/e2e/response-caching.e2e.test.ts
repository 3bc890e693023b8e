import { describe, expect, it } from 'vitest';
import { connectDirectory } from '../support/scim.js';
import { useService } from '../support/service.js';

/**
 * What a browser or proxy may keep of an answer: management and SCIM answers hold client secrets,
 * people and audit records, which a cache would keep past sign-out (OWASP ASVS 8.2.1); discovery
 * and the public key set are everyone's.
 */
const service = useService();

describe('caching of API answers', () => {
  // API Gateway's own 401 (the JWT authorizer's, holding nothing) is not the functions' to shape.
  it('lets no cache keep a management or SCIM answer, success or error', async () => {
    const directory = await connectDirectory(service, service.admin);
    const token = service.admin.token;
    const answers = [
      await service.call('GET', '/idp/clients', { token }),
      await service.call('GET', '/idp/auditEvents', { token }),
      await service.call('GET', `/idp/users/no-such-user`, { token }),
      await directory.call('GET', '/Users'),
      await directory.call('GET', '/Users/no-such-user'),
    ];
    // Answers without a body too: a grant's 204, a creation's Location.
    const user = await service.createUser();
    answers.push(
      await service.call('PUT', `/idp/users/${user}/managedRoles/read-only`, { token }),
      await service.call('POST', '/idp/policies', { token, body: { name: `Cached ${Date.now()}` } }),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 200, 404, 204, 204]);
    expect(answers.map((answer) => answer.headers.get('cache-control'))).toEqual(
      answers.map(() => 'no-store'),
    );
  });

  it('lets caches keep discovery and the public key set for five minutes', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
      const answer = await fetch(`${service.baseUrl}${path}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control'), path).toBe('public, max-age=300');
    }
  });
});
