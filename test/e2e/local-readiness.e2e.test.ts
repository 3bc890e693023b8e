import { describe, expect, it } from 'vitest';
import { startLocalService } from '../../bin/local/service.js';
import { isolatedServiceDatabase } from '../support/database.js';
import { useTempDirs } from '../support/temp-dir.js';

/**
 * The local server answers only once it is ready: while it prepares (the table, the seed, the
 * admin client), its port answers 503 with Retry-After, never a refusal that is true for a moment.
 */
const newDataDirectory = useTempDirs('readiness');

const tokenRequest = (baseUrl: string, clientId: string, clientSecret: string) =>
  fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });

describe('the local server while it starts', () => {
  it('answers 503 with Retry-After until ready, then serves the admin client at once', async () => {
    const answersWhilePreparing: Response[] = [];
    const service = await startLocalService({
      port: 0,
      ...isolatedServiceDatabase(),
      dataDirectory: newDataDirectory(),
      // The bootstrap is done and the port open, but the last preparation still runs.
      beforeReady: async ({ baseUrl, clientId, clientSecret }) => {
        answersWhilePreparing.push(
          await fetch(`${baseUrl}/.well-known/openid-configuration`),
          await tokenRequest(baseUrl, clientId, clientSecret),
        );
      },
    });
    try {
      expect(
        answersWhilePreparing.map((answer) => [answer.status, answer.headers.get('retry-after')]),
      ).toEqual([
        [503, '1'],
        [503, '1'],
      ]);
      // Ready: the same requests succeed.
      expect((await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).status).toBe(200);
      const token = await tokenRequest(service.baseUrl, service.clientId, service.clientSecret);
      expect(token.status).toBe(200);
    } finally {
      await service.close();
    }
  });
});
