import { describe, expect, it } from 'vitest';
import { authenticateClient } from '../../shared/auth/client-credentials.js';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import { toApiError } from '../../shared/http/error-mapping.js';
import {
  deleteApiClient,
  rotateClientSecret,
  updateApiClient,
} from '../../shared/store/api-client-repository.js';
import { auditTrail } from '../support/audit.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';

useDatabase();

const HOUR = 3600_000;
/** Grace periods are given in seconds. */
const HOUR_SECONDS = 3600;

/** Answers whether the secret authenticates the client at time `now` (a clock the test sets). */
const accepted = async (clientId: string, secret: string, now: number) => {
  try {
    await authenticateClient(clientId, secret, now);
    return true;
  } catch (error) {
    if (error instanceof OAuthError && error.error === 'invalid_client') return false;
    throw error;
  }
};

describe('client secret rotation', () => {
  it('keeps the previous secret during the grace period, then only the new one works', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret: first } = await createTestClient(org, []);
    const rotatedAt = Date.now();
    const { clientSecret: second } = await rotateClientSecret(
      org,
      clientId,
      'test',
      24 * HOUR_SECONDS,
      rotatedAt,
    );
    expect(second).not.toBe(first);

    expect(await accepted(clientId, first, rotatedAt + 1)).toBe(true);
    expect(await accepted(clientId, first, rotatedAt + 24 * HOUR - 1)).toBe(true);
    expect(await accepted(clientId, first, rotatedAt + 24 * HOUR)).toBe(false);
    expect(await accepted(clientId, second, rotatedAt + 24 * HOUR)).toBe(true);
    expect(await accepted(clientId, 'wrong', rotatedAt + 1)).toBe(false);

    // A second rotation ends the first secret's grace at once: only one previous secret is kept.
    const { clientSecret: third } = await rotateClientSecret(
      org,
      clientId,
      'test',
      24 * HOUR_SECONDS,
      rotatedAt + HOUR,
    );
    expect(await accepted(clientId, first, rotatedAt + HOUR + 1)).toBe(false);
    expect(await accepted(clientId, second, rotatedAt + HOUR + 1)).toBe(true);
    expect(await accepted(clientId, third, rotatedAt + HOUR + 1)).toBe(true);
  });

  it('a deleted client authenticates with no secret at all', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret } = await createTestClient(org, []);
    const { clientSecret: next } = await rotateClientSecret(org, clientId, 'test', HOUR_SECONDS);
    await deleteApiClient(org, clientId, 'test');
    expect(await accepted(clientId, clientSecret, Date.now())).toBe(false);
    expect(await accepted(clientId, next, Date.now())).toBe(false);
  });

  it('another organization cannot rotate or delete the client (404)', async () => {
    const [org, other] = await Promise.all([createTestOrganization(), createTestOrganization()]);
    const { clientId } = await createTestClient(org.id, []);
    const statusOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 200,
        (error) => toApiError(error).status,
      );
    expect(await statusOf(rotateClientSecret(other.id, clientId, 'test', HOUR_SECONDS))).toBe(404);
    expect(await statusOf(updateApiClient(other.id, clientId, { roles: [] }, 'test'))).toBe(404);
    expect(await statusOf(deleteApiClient(other.id, clientId, 'test'))).toBe(404);
  });
});

describe("an operator's outright change (the local bootstrap's)", () => {
  it('replaces the secret at once, with its record: the secret only as "changed"', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret: first, roleId } = await createTestClient(org, []);
    const since = Date.now();
    await rotateClientSecret(org, clientId, 'test', HOUR_SECONDS);
    await updateApiClient(org, clientId, { clientSecret: 'chosen-by-the-operator', roles: [] }, 'bootstrap');
    expect(await accepted(clientId, 'chosen-by-the-operator', Date.now())).toBe(true);
    // No grace: the secret before it is gone too.
    expect(await accepted(clientId, first, Date.now())).toBe(false);
    const [record] = await auditTrail(org, { action: 'client.updated', targetId: clientId, since });
    expect(record).toMatchObject({
      actor: { type: 'system' },
      changes: {
        clientSecret: 'changed',
        previousSecret: 'changed',
        roles: { from: [roleId], to: [] },
      },
    });
    expect(JSON.stringify(record)).not.toContain('chosen-by-the-operator');
  });
});
