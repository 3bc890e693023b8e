import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordEndedMinutes } from '../../shared/auth/issued-token-records.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { auditTrail } from '../support/audit.js';
import { useDatabase } from '../support/database.js';
import { REDIRECT } from '../support/hosted-pages.js';
import { beforeCommand } from '../support/interleave.js';
import { OAUTH_CALLER, postOAuthForm } from '../support/oauth-function.js';
import { createTestApplication, createTestClient, createTestOrganization } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * The token endpoint's audit records (functions/oauth.ts): `token.refused` for each refused
 * request of a client that exists, written after the answer is decided; `token.issued` counted
 * in memory, one record per client and minute once the minute ended, never on a token's path.
 * The endpoint's handler is called in process as API Gateway would; the clock is faked where
 * minutes matter.
 */

useDatabase();

const SOURCE_IP = OAUTH_CALLER.sourceIp;

let organizationId: string;
let api: { clientId: string; clientSecret: string };
let other: { clientId: string; clientSecret: string };
let app: { id: string; clientSecret: string };
beforeAll(async () => {
  await seedSystemData();
  organizationId = (await createTestOrganization()).id;
  api = await createTestClient(organizationId, ['ROLES.LIST']);
  other = await createTestClient(organizationId, ['ROLES.LIST']);
  app = await createTestApplication(organizationId, { redirectUris: [REDIRECT] });
});

afterEach(() => {
  vi.useRealTimers();
});

const tokenRequest = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  postOAuthForm('/oauth2/token', form, headers);

const clientCredentials = (client: { clientId: string; clientSecret: string }) =>
  tokenRequest({
    grant_type: 'client_credentials',
    client_id: client.clientId,
    client_secret: client.clientSecret,
  });

const bodyOf = (answer: APIGatewayProxyStructuredResultV2) => JSON.parse(String(answer.body));

describe('token.refused', () => {
  it('records each refusal of a client that exists, with why, by the client from its address', async () => {
    // Positive control: done right, a token and no record.
    expect((await clientCredentials(api)).statusCode).toBe(200);
    const basic = { authorization: `Basic ${btoa(`${app.id}:${app.clientSecret}`)}` };
    const refusals: [Record<string, string>, Record<string, string>, string, string][] = [
      [
        { grant_type: 'client_credentials', client_id: api.clientId, client_secret: 'wrong' },
        {},
        api.clientId,
        'invalid_client: Client authentication failed',
      ],
      [
        { grant_type: 'client_credentials' },
        basic,
        app.id,
        'unauthorized_client: An application people sign in to uses the authorization_code grant',
      ],
      [
        {
          grant_type: 'authorization_code',
          code: 'no-such-code',
          redirect_uri: REDIRECT,
          code_verifier: 'v'.repeat(43),
        },
        basic,
        app.id,
        'invalid_grant: The authorization code is invalid, expired, or was issued for another request',
      ],
      [{ grant_type: 'refresh_token' }, basic, app.id, 'invalid_request: refresh_token is required'],
      [
        { grant_type: 'refresh_token', client_id: app.id, client_secret: app.clientSecret },
        {},
        app.id,
        'invalid_client: The client authenticates with client_secret_basic',
      ],
      // Refused before any authentication, the client the request names still gets its record.
      [
        { grant_type: 'password', client_id: api.clientId },
        {},
        api.clientId,
        'unsupported_grant_type: Unsupported grant_type password',
      ],
      [{ client_id: api.clientId }, {}, api.clientId, 'invalid_request: grant_type is required'],
      [{ grant_type: 'password' }, basic, app.id, 'unsupported_grant_type: Unsupported grant_type password'],
    ];
    for (const [form, headers, clientId, reason] of refusals) {
      const since = Date.now();
      const answer = await tokenRequest(form, headers);
      expect(answer.statusCode, reason).toBeGreaterThanOrEqual(400);
      // token.refused alone: a request may write token.issued records of earlier minutes beside it.
      expect(await auditTrail(organizationId, { action: 'token.refused', since })).toEqual([
        {
          id: expect.any(String),
          organizationId,
          time: expect.any(Number),
          action: 'token.refused',
          actor: { type: 'client', id: clientId, ip: SOURCE_IP, userAgent: 'app/1.0' },
          targets: [{ type: 'client', id: clientId }],
          outcome: 'failure',
          reason,
          requestId: 'token-request',
        },
      ]);
    }
  });

  it('records nothing for a client that does not exist, or a request that names none', async () => {
    const since = Date.now();
    for (const form of [
      { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' } as Record<
        string,
        string
      >,
      { grant_type: 'password', client_id: 'nobody' },
      { grant_type: 'password' },
      {},
    ]) {
      expect((await tokenRequest(form)).statusCode).toBeGreaterThanOrEqual(400);
    }
    expect(await auditTrail(organizationId, { action: 'token.refused', since })).toEqual([]);
  });
});

describe('token.issued', () => {
  it('counts tokens in memory, with no write on their path, and records each client-minute once it ended', async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
    vi.useFakeTimers({ toFake: ['Date'], now: minute + 10_000 });
    // The other tests' tokens, of earlier minutes, are recorded first: this test counts its own.
    await recordEndedMinutes();
    const before = await auditTrail(organizationId, { action: 'token.issued' });
    const issued = await measureRoundTrips('three tokens of one client, one of another', async () => {
      for (const client of [api, api, other, api]) {
        expect((await clientCredentials(client)).statusCode).toBe(200);
      }
    });
    // Reads only: a token's answer waits for no write, and nothing is recorded yet.
    expect(issued.recorded.map((call) => call.command)).not.toContainEqual(
      expect.stringMatching(/Put|Write|Update/),
    );
    await recordEndedMinutes();
    expect(await auditTrail(organizationId, { action: 'token.issued' })).toEqual(before);

    // The next token request after the minute writes its records beside its own work, and
    // answers once they are written (a Lambda instance is frozen once it answered: a write left
    // running could land after its hour's digest), however slow the write.
    vi.setSystemTime(minute + 61_000);
    const slowWrite = beforeCommand(
      (input) => (input as { Item?: { action?: unknown } }).Item?.action === 'token.issued',
      () => new Promise((resolve) => setTimeout(resolve, 300)),
    );
    let next: APIGatewayProxyStructuredResultV2;
    try {
      next = await clientCredentials(api);
    } finally {
      slowWrite.stop();
    }
    expect(slowWrite.ran).toBe(true);
    expect(bodyOf(next)).toHaveProperty('access_token');
    // Timed when written: the earlier minutes' records went out at minute + 10 s, above.
    const records = await auditTrail(organizationId, { action: 'token.issued', since: minute + 61_000 });
    expect(
      records.map(({ actor, targets, count, minute, time, outcome }) => ({
        actor,
        targets,
        count,
        minute,
        time,
        outcome,
      })),
    ).toEqual(
      expect.arrayContaining([
        {
          actor: { type: 'client', id: api.clientId },
          targets: [{ type: 'client', id: api.clientId }],
          count: 3,
          minute,
          // Timed when written, by the next request after the minute.
          time: minute + 61_000,
          outcome: 'success',
        },
        {
          actor: { type: 'client', id: other.clientId },
          targets: [{ type: 'client', id: other.clientId }],
          count: 1,
          minute,
          time: minute + 61_000,
          outcome: 'success',
        },
      ]),
    );
    expect(records).toHaveLength(2);
    // The new minute's token waits for its minute to end.
    vi.setSystemTime(minute + 125_000);
    await recordEndedMinutes();
    expect(
      (
        await auditTrail(organizationId, {
          action: 'token.issued',
          actorId: api.clientId,
          since: minute + 61_000,
        })
      ).map((record) => [record.minute, record.count]),
    ).toEqual([
      [minute, 3],
      [minute + 60_000, 1],
    ]);
  });
});
