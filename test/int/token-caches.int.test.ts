import { beforeAll, describe, expect, it, vi } from 'vitest';
import { issueClientToken } from '../../shared/auth/client-credentials.js';
import { OAuthError } from '../../shared/auth/oauth-error.js';
import { createApiClient, rotateClientSecret } from '../../shared/store/api-client-repository.js';
import { seedSystemData } from '../../shared/store/catalogue-repository.js';
import { keys } from '../../shared/store/keys.js';
import { changeRolePermissions } from '../../shared/store/role-repository.js';
import { beforeCommand } from '../support/interleave.js';
import { type Call, measureRoundTrips, roundTrips } from '../support/round-trips.js';
import { createTestClient, createTestOrganization, useDatabase } from '../support/service.js';
import { clientClaims, useTokenCaches } from '../support/token-caches.js';

useDatabase();
useTokenCaches();
beforeAll(() => seedSystemData());

const refusal = (clientId: string, secret: string) =>
  issueClientToken(clientId, secret).then(
    () => 'issued',
    (error) => (error instanceof OAuthError ? error.error : Promise.reject(error)),
  );

/** A read of an organization's access versions (the only BatchGetItem naming them). */
const readsVersions = (call: Call) =>
  call.command === 'BatchGetCommand' && JSON.stringify(call.input).includes(keys.accessVersion('x').sk);

/** A client of a new organization, its first token issued a second ago and the one just now. */
const steadyClient = async (permissions: Parameters<typeof createTestClient>[1] = ['PERMISSIONS.LIST']) => {
  const org = (await createTestOrganization()).id;
  const client = await createTestClient(org, permissions);
  const token = () => clientClaims(client.clientId, client.clientSecret);
  // The first token reads everything before the organization's versions are known; a second
  // later its values are read again, stamped with them.
  await token();
  vi.advanceTimersByTime(1_000);
  await token();
  return { org, ...client, token };
};

describe('token endpoint caches', () => {
  it('a client first seen costs two round trips: the record, then its grants beside the versions', async () => {
    const org = (await createTestOrganization()).id;
    const { clientId, clientSecret } = await createTestClient(org, ['PERMISSIONS.LIST']);
    const first = await measureRoundTrips('first token', () => issueClientToken(clientId, clientSecret));
    expect(first.commands.sort()).toEqual(['BatchGetCommand', 'BatchGetCommand', 'GetCommand']);
    expect(roundTrips(first.recorded)).toBe(2);
  });

  it('a steady caller costs one read of the versions a second, and no round trip waits for another', async () => {
    const { token } = await steadyClient();
    // Every 100 ms for 3 s: the versions expire three times; the record (5 s) and grants (30 s) not.
    const steady = await measureRoundTrips('steady tokens', async () => {
      for (let request = 0; request < 30; request++) {
        vi.advanceTimersByTime(100);
        await token();
      }
    });
    expect(steady.recorded.filter(readsVersions)).toHaveLength(3);
    expect(steady.recorded.filter((call) => !readsVersions(call))).toEqual([]);

    // Concurrent tokens share one read.
    vi.advanceTimersByTime(1_000);
    const burst = await measureRoundTrips('burst', () => Promise.all(Array.from({ length: 10 }, token)));
    expect(burst.commands).toEqual(['BatchGetCommand']);

    // The record expires (5 s after it was read): read again beside the versions.
    vi.advanceTimersByTime(1_000);
    const renewal = await measureRoundTrips('record read again', token);
    expect(renewal.commands.sort()).toEqual(['BatchGetCommand', 'GetCommand']);
    expect(roundTrips(renewal.recorded)).toBe(1);
  });

  it('grants that expire while the record is remembered are read beside the versions', async () => {
    const { token } = await steadyClient();
    // The record is read again at 26 s; at 30 s the grants (read at 0 s) expire, the record not.
    vi.advanceTimersByTime(26_000);
    await token();
    vi.advanceTimersByTime(4_000);
    const renewal = await measureRoundTrips('grants read again', token);
    expect(renewal.commands).toEqual(['BatchGetCommand', 'BatchGetCommand']);
    expect(roundTrips(renewal.recorded)).toBe(1);
  });

  it('what was removed is remembered less than a second after the change', async () => {
    const { org, roleId, token } = await steadyClient(['PERMISSIONS.LIST', 'ROLES.LIST']);
    await changeRolePermissions(org, roleId, ['ROLES.LIST'], 'DELETE');
    vi.advanceTimersByTime(999);
    expect((await token()).permissions).toContain('ROLES.LIST');
    vi.advanceTimersByTime(1);
    expect((await token()).permissions).not.toContain('ROLES.LIST');
  });

  it('a change that only adds moves no version: remembered grants stay in use up to 30 s', async () => {
    const { org, roleId, token } = await steadyClient(['PERMISSIONS.LIST']);
    await changeRolePermissions(org, roleId, ['ROLES.LIST'], 'ADD');
    vi.advanceTimersByTime(1_000);
    const after = await measureRoundTrips('after an addition', token);
    expect(after.result.permissions).toEqual(['PERMISSIONS.LIST']);
    expect(after.recorded.every(readsVersions)).toBe(true);
    vi.advanceTimersByTime(29_000);
    expect((await token()).permissions).toEqual(['PERMISSIONS.LIST', 'ROLES.LIST']);
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

  it('judges cached grants when the token is signed: a slow read after the request began lets no removed permission through', async () => {
    const org = (await createTestOrganization()).id;
    // The first client warms this instance's grants of the role; the second holds the same role,
    // its record not read yet.
    const first = await createTestClient(org, ['PERMISSIONS.LIST', 'AUDIT.READ']);
    const second = await createApiClient({
      organizationId: org,
      name: 'second',
      clientType: 'STANDARD',
      roles: [first.roleId],
      policies: [],
      createdBy: 'test',
    });
    expect((await clientClaims(first.clientId, first.clientSecret)).permissions).toContain('AUDIT.READ');
    vi.advanceTimersByTime(100);
    await changeRolePermissions(org, first.roleId, ['AUDIT.READ'], 'DELETE');
    const changedAt = Date.now();
    vi.advanceTimersByTime(300);
    // The second client's record takes 2 s to read: the token is signed 2.3 s after the change,
    // though its request began 0.3 s after it, within the second cached grants may stand in.
    const slow = beforeCommand(
      (input) => JSON.stringify(input).includes(second.id),
      async () => {
        vi.advanceTimersByTime(2_000);
      },
    );
    try {
      const claims = await clientClaims(second.id, second.clientSecret as string);
      expect(slow.ran).toBe(true);
      expect((claims.iat as number) * 1000 - changedAt).toBeGreaterThan(1_000);
      expect(claims.permissions).toEqual(['PERMISSIONS.LIST']);
    } finally {
      slow.stop();
    }
  });
});
