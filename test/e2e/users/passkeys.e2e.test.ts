import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../../shared/audit/record.js';
import { addPasskey } from '../../../shared/store/passkeys.js';
import type { ApiError } from '../../support/service.js';
import { useFixture, useService } from '../../support/service.js';
import { emailsTo } from '../../support/sign-in-flow.js';

/** GET and DELETE /idp/users/{id}/passkeys: an administrator removes a lost passkey (docs/passkeys.md). */
const service = useService();
const mine = useFixture(() => service.freshOrganizationWithUser());
const theirs = useFixture(() => service.freshOrganizationWithUser());

interface ApiPasskey {
  id: string;
  name: string;
  backupEligible: boolean;
  flagged: boolean;
  lastUsedAt: number | null;
}

const enrol = (organizationId: string, userId: string, credentialId: string) =>
  addPasskey({
    organizationId,
    userId,
    credentialId,
    publicKey: 'pQECAyYgASFYIA',
    signCount: 0,
    transports: new Set(['internal']),
    backupEligible: false,
    backedUp: false,
    aaguid: '00000000-0000-0000-0000-000000000000',
    name: 'Laptop',
  });

const list = (userId: string, token: string) =>
  service.call<ApiPasskey[] & ApiError>('GET', `/idp/users/${userId}/passkeys`, { token });
const removeOne = (userId: string, passkeyId: string, token: string) =>
  service.call<ApiError>('DELETE', `/idp/users/${userId}/passkeys/${passkeyId}`, { token });

describe("a user's passkeys", () => {
  it('lists them without their public keys, and removes one with its record', async () => {
    const passkey = await enrol(mine.orgId, mine.user.id, `cred-${Date.now()}`);
    const listed = await list(mine.user.id, mine.token);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      {
        id: passkey.credentialKey,
        name: 'Laptop',
        createdAt: passkey.createdAt,
        lastUsedAt: null,
        transports: ['internal'],
        backupEligible: false,
        backedUp: false,
        aaguid: '00000000-0000-0000-0000-000000000000',
        flagged: false,
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('pQECAyYgASFYIA');

    const notices = () => emailsTo(service, mine.user.id, 'SECURITY_NOTICE_EMAIL');
    expect(await notices()).toEqual([]);
    expect((await removeOne(mine.user.id, passkey.credentialKey, mine.token)).status).toBe(204);
    expect((await list(mine.user.id, mine.token)).body).toEqual([]);
    // The person is told, by whoever removed it (OWASP ASVS 2.5.5).
    expect(await notices()).toEqual([expect.objectContaining({ to: mine.user.email })]);
    expect((await removeOne(mine.user.id, passkey.credentialKey, mine.token)).status).toBe(404);
    const records = await service.call<AuditRecord[]>(
      'GET',
      `/idp/auditEvents?action=passkey.&targetId=${mine.user.id}`,
      {
        token: mine.token,
      },
    );
    // Newest first: the refused second removal, the removal, the registration.
    expect(records.body.map((record) => [record.action, record.outcome])).toEqual([
      ['passkey.removed', 'failure'],
      ['passkey.removed', 'success'],
      ['passkey.registered', 'success'],
    ]);
  });

  it('needs USER.DETAILS to list and USER.UPDATE to remove (403), starting from callers that have them', async () => {
    const passkey = await enrol(mine.orgId, mine.user.id, `perm-${Date.now()}`);
    const reader = await service.callerWith(['USER.DETAILS'], { organization: mine.orgId });
    expect((await list(mine.user.id, reader.token)).status).toBe(200);
    const other = await service.callerWith(['PERMISSIONS.LIST'], { organization: mine.orgId });
    expect((await list(mine.user.id, other.token)).status).toBe(403);
    expect((await removeOne(mine.user.id, passkey.credentialKey, reader.token)).status).toBe(403);
    const updater = await service.callerWith(['USER.UPDATE'], { organization: mine.orgId });
    expect((await removeOne(mine.user.id, passkey.credentialKey, updater.token)).status).toBe(204);
  });

  it("never lists or removes another organization's passkeys (404)", async () => {
    const passkey = await enrol(theirs.orgId, theirs.user.id, `theirs-${Date.now()}`);
    // Positive control: their administrator sees it.
    expect((await list(theirs.user.id, theirs.token)).body).toHaveLength(1);
    expect((await list(theirs.user.id, mine.token)).status).toBe(404);
    expect((await removeOne(theirs.user.id, passkey.credentialKey, mine.token)).status).toBe(404);
    expect((await list(theirs.user.id, theirs.token)).body).toHaveLength(1);
  });

  it('refuses a malformed passkey id (400)', async () => {
    expect((await removeOne(mine.user.id, 'not-a-passkey-id', mine.token)).status).toBe(400);
  });
});
