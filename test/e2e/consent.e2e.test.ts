import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../shared/audit/record.js';
import { publishAgreement } from '../../shared/store/consent-repository.js';
import { getUser, storedUser } from '../../shared/store/user-repository.js';
import { put, writeOne } from '../../shared/store/writes.js';
import { useService } from '../support/service.js';

/** Agreements are global, so this file publishes them in order and checks each step. */
const service = useService();
let userToken: string;

beforeAll(async () => {
  userToken = await service.userToken(await service.createUser({ email: 'consenting@example.com' }));
});

const consentStatus = async (caller: string) =>
  (await service.call<{ accepted: boolean }>('GET', '/idp/consent', { token: caller })).body.accepted;

describe('agreements and consent', () => {
  it('before any agreement: latest is null and everyone counts as having accepted', async () => {
    const latest = await service.call('GET', '/idp/latestAgreement', { token: service.admin.token });
    expect(latest.status).toBe(200);
    expect(latest.body).toBeNull();
    expect(await consentStatus(service.admin.token)).toBe(true);
    expect(await consentStatus(userToken)).toBe(true);
  });

  it('404 for consent to an unknown agreement, 400 for a malformed id', async () => {
    const unknown = await service.call<{ message: string }>('POST', '/idp/consent/no-such-agreement', {
      token: service.admin.token,
    });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Agreement not found']);
    expect((await service.call('POST', '/idp/consent/bad%20id', { token: service.admin.token })).status).toBe(
      400,
    );
  });

  it('a published agreement is the latest until the next; consent is per principal and idempotent', async () => {
    const first = await publishAgreement('https://example.com/terms/1');
    expect((await service.call('GET', '/idp/latestAgreement', { token: service.admin.token })).body).toEqual(
      first,
    );
    expect(await consentStatus(service.admin.token)).toBe(false);
    expect(await consentStatus(userToken)).toBe(false);

    const recorded = await service.call<Record<string, string>>('POST', `/idp/consent/${first.id}`, {
      token: userToken,
    });
    expect(recorded.status).toBe(200);
    expect(recorded.body).toMatchObject({ agreementId: first.id });
    expect(Number.isNaN(Date.parse(recorded.body.createdAt as string))).toBe(false);
    const repeat = await service.call('POST', `/idp/consent/${first.id}`, { token: userToken });
    expect(repeat.body).toEqual(recorded.body);
    // Recorded once, by the person: the repeat changed nothing.
    const records = await service.call<AuditRecord[]>(
      'GET',
      `/idp/auditEvents?action=consent.accepted&targetId=${first.id}`,
      { token: service.admin.token },
    );
    expect(records.body).toHaveLength(1);
    expect(records.body[0]).toMatchObject({
      actor: { type: 'user', id: decodeJwt(userToken).sub },
      targets: [{ type: 'agreement', id: first.id }],
      changes: { consentId: { from: null, to: recorded.body.id }, agreementId: { from: null, to: first.id } },
    });
    expect(await consentStatus(userToken)).toBe(true);
    expect(await consentStatus(service.admin.token)).toBe(false);

    const second = await publishAgreement('https://example.com/terms/2');
    expect((await service.call('GET', '/idp/latestAgreement', { token: service.admin.token })).body).toEqual(
      second,
    );
    expect(await consentStatus(userToken)).toBe(false);
    // Consent to an older agreement still records, but does not accept the latest.
    const older = await service.call<Record<string, string>>('POST', `/idp/consent/${first.id}`, {
      token: service.admin.token,
    });
    expect(older.body.agreementId).toBe(first.id);
    expect(await consentStatus(service.admin.token)).toBe(false);
    expect(
      (await service.call('POST', `/idp/consent/${second.id}`, { token: service.admin.token })).status,
    ).toBe(200);
    expect(await consentStatus(service.admin.token)).toBe(true);
  });

  it("records the token's principal: the user id for a user, the client id for an API client", async () => {
    const latest = (
      await service.call<{ id: string }>('GET', '/idp/latestAgreement', { token: service.admin.token })
    ).body;
    const userId = decodeJwt(userToken).sub;
    const byUser = await service.call<Record<string, string>>('POST', `/idp/consent/${latest.id}`, {
      token: userToken,
    });
    expect(byUser.body.userId).toBe(userId);
    const noPermissions = (await service.callerWith([])).token;
    const clientId = decodeJwt(noPermissions).sub;
    const byClient = await service.call<Record<string, string>>('POST', `/idp/consent/${latest.id}`, {
      token: noPermissions,
    });
    expect(byClient.status).toBe(200);
    expect(byClient.body.userId).toBe(clientId);
  });

  it('consent is kept per organization: the same principal id, consented in one, is asked again in another', async () => {
    const latest = (
      await service.call<{ id: string }>('GET', '/idp/latestAgreement', { token: service.admin.token })
    ).body;
    const [home, elsewhere] = await Promise.all([service.freshOrganization(), service.freshOrganization()]);
    const userId = await service.createUser({ email: 'twice@example.com', as: home });
    // Ids are random, so the same principal id in a second organization is written directly: what
    // this isolates is the organization in the consent's key. No roles there (they are home's).
    const user = await getUser(home.orgId, userId, true);
    if (!user) throw new Error('The user just created is missing');
    const { roles: _roles, managedRoles: _managedRoles, ...withoutRoles } = user;
    await writeOne(put(storedUser({ ...withoutRoles, organizationId: elsewhere.orgId })));
    const [inHome, inElsewhere] = await Promise.all([
      service.userToken(userId, home.orgId),
      service.userToken(userId, elsewhere.orgId),
    ]);

    // Positive control: the consent counts in the organization where it was given.
    expect(await consentStatus(inHome)).toBe(false);
    const given = await service.call('POST', `/idp/consent/${latest.id}`, { token: inHome });
    expect(given.status).toBe(200);
    expect(await consentStatus(inHome)).toBe(true);
    // The same principal id in the other organization has not consented there.
    expect(await consentStatus(inElsewhere)).toBe(false);
  });
});
