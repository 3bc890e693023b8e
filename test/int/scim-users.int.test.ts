import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../shared/auth/passwords.js';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { keys, LISTINGS } from '../../shared/store/keys.js';
import { addPasskey, listPasskeys, passkeyOwner } from '../../shared/store/passkeys.js';
import {
  createUserFromDirectory,
  deprovisionUser,
  provisionedUser,
  provisionedUsersByEmail,
  provisionedUsersByExternalId,
  replaceUserFromDirectory,
} from '../../shared/store/scim-users.js';
import { listingSize } from '../../shared/store/sequenced-listing.js';
import { linkedUserId, linkSsoSubject, listSsoLinks } from '../../shared/store/sso-links.js';
import { createUser, getUser, updateUserAttributes } from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { beforeTransaction } from '../support/interleave.js';
import { createTestOrganization, getItem, setDefaultRole, useDatabase } from '../support/service.js';

useDatabase();

const person = (email: string, fields: Partial<Parameters<typeof createUserFromDirectory>[1]> = {}) => ({
  email,
  name: 'Directory Person',
  active: true,
  ...fields,
});
const CORP = { clientId: 'corp-login', issuer: 'https://login.corp.example' };
const sizes = async (org: string) => ({
  active: (await listingSize(org, LISTINGS.users('ACTIVE'))).size,
  inactive: (await listingSize(org, LISTINGS.users('INACTIVE'))).size,
});

/** A passkey as stored (no ceremony needed to store one). */
const LEAVERS_PASSKEY = {
  credentialId: 'the-leavers-credential',
  publicKey: 'cHVibGlj',
  signCount: 0,
  backupEligible: false,
  backedUp: false,
  aaguid: '00000000-0000-0000-0000-000000000000',
  name: 'Leaver laptop',
};

describe('users a directory provisions', () => {
  it('moves the email guard, the external id entry and the listing in one change; frees what it left', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(
      org,
      person('old@dir.example', { externalId: 'e-1' }),
      'dir',
      3600,
    );
    expect(await getItem(keys.externalIdEntry(org, 'USER', 'e-1', user.id))).toBeDefined();

    const { user: next } = await replaceUserFromDirectory(
      org,
      user.id,
      person('new@dir.example', { externalId: 'e-2', active: false, givenName: 'Dir', familyName: 'Person' }),
    );
    expect(next).toMatchObject({
      email: 'new@dir.example',
      externalId: 'e-2',
      status: 'INACTIVE',
      givenName: 'Dir',
    });
    expect(await getItem(keys.externalIdEntry(org, 'USER', 'e-1', user.id))).toBeUndefined();
    expect((await provisionedUsersByExternalId(org, 'e-2')).map((found) => found.id)).toEqual([user.id]);
    expect(await provisionedUsersByExternalId(org, 'e-1')).toEqual([]);
    expect((await provisionedUsersByEmail(org, 'NEW@dir.example')).map((found) => found.id)).toEqual([
      user.id,
    ]);
    expect(await sizes(org)).toEqual({ active: 0, inactive: 1 });
    // The old email is free again.
    await createUser({
      organizationId: org,
      email: 'old@dir.example',
      name: 'Other',
      userType: 'STANDARD',
      createdBy: 't',
    });
  });

  it('writes nothing when a replace fails: an email another user holds is a conflict, the user unchanged', async () => {
    const org = (await createTestOrganization()).id;
    await createUserFromDirectory(org, person('taken@dir.example'), 'dir', 3600);
    const { user } = await createUserFromDirectory(
      org,
      person('mine@dir.example', { externalId: 'keep' }),
      'dir',
      3600,
    );
    await expect(
      replaceUserFromDirectory(
        org,
        user.id,
        person('taken@dir.example', { name: 'Changed', externalId: 'other' }),
      ),
    ).rejects.toBeInstanceOf(Conflict);
    expect(await getUser(org, user.id, true)).toMatchObject({
      email: 'mine@dir.example',
      name: 'Directory Person',
      externalId: 'keep',
    });
    expect(await provisionedUsersByExternalId(org, 'other')).toEqual([]);
  });

  it('deprovisions (INACTIVE, gone from SCIM), and the same userName provisioned again brings the user back', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('leaver@dir.example'), 'dir', 3600);
    await deprovisionUser(org, user.id);
    expect(await provisionedUser(org, user.id)).toBeUndefined();
    expect(await provisionedUsersByEmail(org, 'leaver@dir.example')).toEqual([]);
    expect(await getUser(org, user.id, true)).toMatchObject({
      status: 'INACTIVE',
      deprovisionedAt: expect.any(Number),
    });
    expect(await sizes(org)).toEqual({ active: 0, inactive: 1 });
    await expect(deprovisionUser(org, user.id)).rejects.toBeInstanceOf(NotFound);

    const back = await createUserFromDirectory(
      org,
      person('leaver@dir.example', { name: 'Returner' }),
      'dir',
      3600,
    );
    expect(back.user).toMatchObject({ id: user.id, status: 'ACTIVE', name: 'Returner' });
    expect((await getUser(org, user.id, true))?.deprovisionedAt).toBeUndefined();
    expect(await sizes(org)).toEqual({ active: 1, inactive: 0 });
  });

  it("clears the deleted person's password, TOTP, recovery codes and passkeys, and invites whoever comes back", async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('handed-on@dir.example'), 'dir', 3600);
    const credentials = {
      passwordHash: await hashPassword('the leaver password'),
      totpSecret: 'JBSWY3DPEHPK3PXP',
      recoveryCodeDigests: new Set(['digest-of-a-recovery-code']),
    };
    await updateUserAttributes(org, user.id, credentials);
    await addPasskey({ ...LEAVERS_PASSKEY, organizationId: org, userId: user.id });
    const held = async () => {
      const stored = await getUser(org, user.id, true);
      return {
        password:
          stored?.passwordHash !== undefined &&
          (await verifyPassword('the leaver password', stored.passwordHash)),
        totp: stored?.totpSecret !== undefined,
        recoveryCodes: stored?.recoveryCodeDigests?.size ?? 0,
        passkeys: (await listPasskeys(org, user.id)).length,
        passkeyOwner: (await passkeyOwner('the-leavers-credential'))?.userId,
      };
    };
    // Positive control: a directory's change that is no DELETE leaves them all.
    await replaceUserFromDirectory(org, user.id, person('handed-on@dir.example', { name: 'Renamed' }));
    const all = { password: true, totp: true, recoveryCodes: 1, passkeys: 1, passkeyOwner: user.id };
    expect(await held()).toEqual(all);

    await deprovisionUser(org, user.id);
    const none = { password: false, totp: false, recoveryCodes: 0, passkeys: 0, passkeyOwner: undefined };
    expect(await held()).toEqual(none);
    const [deleted] = await auditTrail(org, { action: 'user.status.changed' });
    expect(deleted?.changes).toMatchObject({ passwordHash: 'changed', totpSecret: 'changed' });
    expect(JSON.stringify(deleted)).not.toContain(credentials.passwordHash);

    // The address comes back, maybe as someone else's: nothing of the leaver's, and a join email.
    const back = await createUserFromDirectory(org, person('handed-on@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    expect(await held()).toEqual(none);
    expect(back.joinEmail?.email).toMatchObject({ to: 'handed-on@dir.example' });
  });

  it("brings the address back with a new user's access, not what the person who left was given", async () => {
    const org = (await createTestOrganization()).id;
    await setDefaultRole(org, 'user', false);
    const { user } = await createUserFromDirectory(org, person('admin-leaver@dir.example'), 'dir', 3600);
    const given = {
      roles: new Set(['a-role-of-the-org']),
      managedRoles: new Set(['administrator']),
      policies: new Set(['a-policy']),
      userType: 'RESTRICTED' as const,
      verifiedEmail: 'admin-leaver@dir.example',
      pictureContentType: 'image/png',
      pictureUpdatedAt: Date.now(),
    };
    await updateUserAttributes(org, user.id, given);
    const access = async () => {
      const stored = await getUser(org, user.id, true);
      return {
        roles: [...(stored?.roles ?? [])],
        managedRoles: [...(stored?.managedRoles ?? [])].sort(),
        policies: [...(stored?.policies ?? [])],
        userType: stored?.userType,
        verifiedEmail: stored?.verifiedEmail,
        picture: stored?.pictureContentType,
      };
    };
    const leavers = {
      roles: ['a-role-of-the-org'],
      managedRoles: ['administrator'],
      policies: ['a-policy'],
      userType: 'RESTRICTED',
      verifiedEmail: 'admin-leaver@dir.example',
      picture: 'image/png',
    };
    // Positive control: a directory's change that is no revival keeps them, and its DELETE too
    // (but the picture, which goes with the DELETE: picture.e2e).
    await replaceUserFromDirectory(org, user.id, person('admin-leaver@dir.example', { name: 'Renamed' }));
    expect(await access()).toEqual(leavers);
    await deprovisionUser(org, user.id);
    expect(await access()).toEqual({ ...leavers, picture: undefined });

    const back = await createUserFromDirectory(org, person('admin-leaver@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    // The organization's default role, as a new user of the directory gets, and nothing else.
    expect(await access()).toEqual({
      roles: [],
      managedRoles: ['user'],
      policies: [],
      userType: 'STANDARD',
      verifiedEmail: undefined,
      picture: undefined,
    });
    const revived = (await auditTrail(org, { action: 'user.updated', targetId: user.id })).at(-1);
    expect(revived?.changes).toMatchObject({
      managedRoles: { from: ['administrator'], to: ['user'] },
      policies: { from: ['a-policy'], to: null },
      userType: { from: 'RESTRICTED', to: 'STANDARD' },
    });
  });

  it('removes a passkey added between the DELETE reading the person and its last write', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('racing@dir.example'), 'dir', 3600);
    const added = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('deprovisionedAt')),
      () => addPasskey({ ...LEAVERS_PASSKEY, organizationId: org, userId: user.id }),
    );
    try {
      await deprovisionUser(org, user.id);
    } finally {
      added.stop();
    }
    expect(added.ran).toBe(true);
    expect(await listPasskeys(org, user.id)).toEqual([]);
    expect(await passkeyOwner(LEAVERS_PASSKEY.credentialId)).toBeUndefined();
    expect((await getUser(org, user.id, true))?.deprovisionedAt).toEqual(expect.any(Number));
  });

  it("unlinks the deleted person's SSO identities when the directory brings the address back", async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('rehired@dir.example'), 'dir', 3600);
    await linkSsoSubject(user, { ...CORP, subject: 'the-leaver' });
    await linkSsoSubject(user, { ...CORP, clientId: 'other-login', subject: 'the-leaver-elsewhere' });
    // Positive control: a directory's change that is no return keeps the links.
    await replaceUserFromDirectory(org, user.id, person('rehired@dir.example', { name: 'Renamed' }));
    expect(await listSsoLinks(org, user.id)).toHaveLength(2);

    await deprovisionUser(org, user.id);
    await createUserFromDirectory(org, person('rehired@dir.example'), 'dir', 3600);
    expect(await listSsoLinks(org, user.id)).toEqual([]);
    expect(await linkedUserId(org, { ...CORP, subject: 'the-leaver' })).toBeUndefined();
    // One transaction, one instant: the two records come in no set order.
    const removed = (await auditTrail(org, { action: 'ssoLink.removed' })).map((record) =>
      record.targets.map((target) => target.id).join(' '),
    );
    expect(removed.sort()).toEqual([`${user.id} corp-login`, `${user.id} other-login`]);
  });

  it('does not take over a user the management API created: its email is a conflict', async () => {
    const org = (await createTestOrganization()).id;
    await createUser({
      organizationId: org,
      email: 'managed@dir.example',
      name: 'Managed',
      userType: 'STANDARD',
      createdBy: 't',
    });
    await expect(
      createUserFromDirectory(org, person('managed@dir.example'), 'dir', 3600),
    ).rejects.toBeInstanceOf(Conflict);
  });
});
