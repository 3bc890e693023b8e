import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimitSettings } from '../../shared/domain/rate-limit.js';
import { RATE_COUNTER_PREFIX } from '../../shared/store/keys.js';
import { measureRoundTrips, roundTrips } from '../support/round-trips.js';
import { createTestOrganization, uniqueEmail, useService } from '../support/service.js';

/**
 * DynamoDB round trips on the critical path of a management request, measured in the service's
 * own process: a read runs beside its rate-limit write, a write waits for it.
 */
/** The second the gateway stamps on requests: the machine's until a test pins one. */
let pinnedSecond: number | undefined;
const service = useService({
  clock: () => (pinnedSecond === undefined ? Date.now() : pinnedSecond * 1000 + 500),
});
/** Seconds of this file's own (its database is its own): nothing else counts in them. */
const FIRST_SECOND = 1_900_000_000;
const OTHER_SECOND = 1_900_000_100;
afterEach(() => {
  pinnedSecond = undefined;
});

/** A caller of a new organization with `rateLimit`, a user to read, both warmed up. */
const organizationWith = async (rateLimit: RateLimitSettings) => {
  const organization = (await createTestOrganization({ rateLimit })).id;
  const caller = await service.callerWith(['USER.ADD', 'USER.DETAILS', 'USER.UPDATE'], { organization });
  const created = await service.call<{ id: string }>('POST', '/idp/users', {
    token: caller.token,
    body: { email: uniqueEmail(), name: 'Read Me', userType: 'STANDARD' },
  });
  const userId = created.headers.get('location')?.split('/').pop() ?? '';
  // The instance now knows the principal's status and the organization's limit.
  return { token: caller.token, path: `/idp/users/${userId}` };
};

describe('round trips of a management request', () => {
  it('a steady read is one round trip, the first read of a second too', async () => {
    const { token, path } = await organizationWith({ rate: 10, burst: 10 });
    // A second no request has counted in yet.
    pinnedSecond = FIRST_SECOND;
    const first = await measureRoundTrips('first read of a second', () =>
      service.call('GET', path, { token }),
    );
    expect(first.result.status).toBe(200);
    // The counter write, the previous second's counters, and the user with the organization's
    // archived ids (one BatchGetItem), all at once.
    expect(first.commands).toEqual(expect.arrayContaining(['BatchGetCommand', 'UpdateCommand']));
    expect(first.commands.filter((command) => command === 'BatchGetCommand')).toHaveLength(2);
    expect(roundTrips(first.recorded)).toBe(1);

    const steady = await measureRoundTrips('steady read', () => service.call('GET', path, { token }));
    expect(steady.result.status).toBe(200);
    expect(roundTrips(steady.recorded)).toBe(1);
  });

  it('a read beyond the steady share of a second costs at most one more', async () => {
    const { token, path } = await organizationWith({ rate: 1, burst: 5 });
    // After an idle second the allowance is 1 + 5: the second read goes beyond the steady share.
    pinnedSecond = OTHER_SECOND;
    await service.call('GET', path, { token });
    const beyond = await measureRoundTrips('read beyond the steady rate', () =>
      service.call('GET', path, { token }),
    );
    expect(beyond.result.status).toBe(200);
    expect(beyond.commands.filter((command) => command === 'UpdateCommand')).toHaveLength(2);
    expect(roundTrips(beyond.recorded)).toBeLessThanOrEqual(2);
  });

  it('a write starts only once the request is admitted', async () => {
    const { token, path } = await organizationWith({ rate: 10, burst: 10 });
    const write = await measureRoundTrips('write', () =>
      service.call('PUT', path, { token, body: { name: 'Renamed' } }),
    );
    expect(write.result.status).toBe(200);
    // Admission is the rate-limit counters (written, and read at a second's first request).
    const isAdmission = (call: (typeof write.recorded)[number]) =>
      call.partitions.length > 0 && call.partitions.every((pk) => pk.startsWith(RATE_COUNTER_PREFIX));
    const admission = write.recorded.filter(isAdmission);
    const handler = write.recorded.filter((call) => !isAdmission(call));
    expect(admission.map((call) => call.command)).toContain('UpdateCommand');
    expect(handler.length).toBeGreaterThan(0);
    const admitted = Math.max(...admission.map((call) => call.end));
    for (const call of handler) expect(call.start).toBeGreaterThanOrEqual(admitted);
  });
});
