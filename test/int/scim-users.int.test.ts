import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../shared/auth/passwords.js';
import { signInStillStands } from '../../shared/domain/authorization.js';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { batchPut } from '../../shared/store/batch.js';
import {
  agreementAwaitingConsent,
  consentKeysOf,
  publishAgreement,
  recordConsent,
} from '../../shared/store/consent-repository.js';
import { ConsentEntity } from '../../shared/store/entities.js';
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
import {
  createUser,
  getUser,
  setUserStatus,
  type UserRecord,
  updateUserAttributes,
  updateUserProfile,
} from '../../shared/store/user-repository.js';
import { auditTrail } from '../support/audit.js';
import { resetPassword } from '../support/hosted-pages.js';
import { beforeTransaction, instantAfter, sameKey } from '../support/interleave.js';
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

const holdsPassword = async (org: string, id: string, password: string) => {
  const stored = await getUser(org, id, true);
  return stored?.passwordHash !== undefined && (await verifyPassword(password, stored.passwordHash));
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
      pictureCleaned: true,
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
        pictureCleaned: stored?.pictureCleaned,
      };
    };
    const leavers = {
      roles: ['a-role-of-the-org'],
      managedRoles: ['administrator'],
      policies: ['a-policy'],
      userType: 'RESTRICTED',
      verifiedEmail: 'admin-leaver@dir.example',
      picture: 'image/png',
      pictureCleaned: true,
    };
    // Positive control: a directory's change that is no revival keeps them, and its DELETE too
    // (but the picture, which goes with the DELETE: picture.e2e).
    await replaceUserFromDirectory(org, user.id, person('admin-leaver@dir.example', { name: 'Renamed' }));
    expect(await access()).toEqual(leavers);
    await deprovisionUser(org, user.id);
    expect(await access()).toEqual({ ...leavers, picture: undefined, pictureCleaned: undefined });

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
      pictureCleaned: undefined,
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

  it('brings the address back without what the leaver signed in with after an administrator reactivated them', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('handed-on-2@dir.example'), 'dir', 3600);
    await deprovisionUser(org, user.id);
    // An administrator reactivates them (docs/scim.md); a reset sets a password, the leaver signs in
    // and enrols TOTP with recovery codes.
    await setUserStatus(org, user.id, 'ACTIVE');
    await resetPassword((await getUser(org, user.id, true)) as UserRecord, 'the leaver password');
    await updateUserAttributes(org, user.id, {
      totpSecret: 'JBSWY3DPEHPK3PXP',
      recoveryCodeDigests: new Set(['digest-of-a-recovery-code']),
    });
    const leaversSignIn = await instantAfter(0);
    // Positive control: all of it holds while the user is not revived.
    expect(await holdsPassword(org, user.id, 'the leaver password')).toBe(true);
    expect(signInStillStands(await getUser(org, user.id, true), leaversSignIn)).toBe(true);

    // The directory provisions the address again ("the address may be someone else's now").
    const back = await createUserFromDirectory(org, person('handed-on-2@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    expect(back.joinEmail).toBeDefined();
    const revived = await getUser(org, user.id, true);
    expect(await holdsPassword(org, user.id, 'the leaver password')).toBe(false);
    expect(revived?.status).toBe('ACTIVE');
    expect(revived?.totpSecret).toBeUndefined();
    expect(revived?.recoveryCodeDigests?.size ?? 0).toBe(0);
    expect(signInStillStands(revived, leaversSignIn)).toBe(false);
    // The revival's record says what went, never the values.
    const record = (await auditTrail(org, { action: 'user.updated', targetId: user.id })).at(-1);
    expect(record?.changes).toMatchObject({ passwordHash: 'changed', totpSecret: 'changed' });
  });

  it('does not bring back a sign-in the leaver made while the DELETE was under way', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('mid-delete@dir.example'), 'dir', 3600);
    // The leaver signs in (still ACTIVE) just before the DELETE's last write.
    let duringDelete = 0;
    const hook = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('deprovisionedAt') ?? false),
      async () => {
        duringDelete = await instantAfter(0);
        // Positive control: that sign-in stood when it was made.
        expect(signInStillStands(await getUser(org, user.id, true), duringDelete)).toBe(true);
      },
    );
    try {
      await deprovisionUser(org, user.id);
    } finally {
      hook.stop();
    }
    expect(hook.ran).toBe(true);

    // The directory provisions the address again (maybe for someone else): the sign-in ends.
    const back = await createUserFromDirectory(org, person('mid-delete@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    expect(signInStillStands(await getUser(org, user.id, true), duringDelete)).toBe(false);
  });

  it('asks whoever comes back to accept the agreement the person who left accepted', async () => {
    const org = (await createTestOrganization()).id;
    const agreement = await publishAgreement('https://example.com/terms-scim-revive');
    const { user } = await createUserFromDirectory(org, person('agreed@dir.example'), 'dir', 3600);
    await recordConsent(org, user.id, agreement.id);
    // Positive control: accepted, and a DELETE alone keeps the acceptance.
    await deprovisionUser(org, user.id);
    expect(await agreementAwaitingConsent(org, user.id)).toBeUndefined();

    const back = await createUserFromDirectory(org, person('agreed@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    // The address "may be someone else's now": that person has accepted nothing.
    expect((await agreementAwaitingConsent(org, user.id))?.id).toBe(agreement.id);
    expect(await consentKeysOf(org, user.id)).toEqual([]);
    const record = (await auditTrail(org, { action: 'user.updated', targetId: user.id })).at(-1);
    expect(record?.changes).toMatchObject({ consents: { from: 1, to: 0 } });
  });

  it('deletes more consents than its transaction holds before the revival, so a failed revival is finished by the retry', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('many-agreed@dir.example'), 'dir', 3600);
    const consent = (agreementId: string) =>
      ConsentEntity.item(
        { organizationId: org, principalId: user.id, agreementId },
        { id: agreementId, createdAt: new Date().toISOString(), agreementId, userId: user.id },
      );
    await batchPut(Array.from({ length: 120 }, (_, index) => consent(`agreement-${index}`)));
    expect(await consentKeysOf(org, user.id)).toHaveLength(120);
    await deprovisionUser(org, user.id);

    // The revival's transaction fails once, after the consents went: the user stays deprovisioned.
    const failing = beforeTransaction(
      (items) => items.some((item) => sameKey(item.Update?.Key, keys.user(org, user.id))),
      () => Promise.reject(new Error('the store failed')),
    );
    try {
      await expect(
        createUserFromDirectory(org, person('many-agreed@dir.example'), 'dir', 3600),
      ).rejects.toThrow('the store failed');
    } finally {
      failing.stop();
    }
    expect(failing.ran).toBe(true);
    expect(await consentKeysOf(org, user.id)).toEqual([]);
    expect((await getUser(org, user.id, true))?.deprovisionedAt).toEqual(expect.any(Number));

    // A consent given meanwhile (the transaction then holds it) and the directory's retry.
    await batchPut([consent('agreement-meanwhile')]);
    const back = await createUserFromDirectory(org, person('many-agreed@dir.example'), 'dir', 3600);
    expect(back.user.id).toBe(user.id);
    expect(await consentKeysOf(org, user.id)).toEqual([]);
    expect((await getUser(org, user.id, true))?.deprovisionedAt).toBeUndefined();
  });

  it('ends a sign-in made while a DELETE ran another round, also once an administrator reactivates the user', async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('slow-delete@dir.example'), 'dir', 3600);
    let duringDelete = 0;
    const hook = beforeTransaction(
      (items) => items.some((item) => item.Update?.UpdateExpression?.includes('deprovisionedAt') ?? false),
      async () => {
        duringDelete = await instantAfter(Date.now());
        // Positive control: the sign-in stood when it was made.
        expect(signInStillStands(await getUser(org, user.id, true), duringDelete)).toBe(true);
        // The account page adds a passkey meanwhile: the DELETE removes it in another round.
        await addPasskey({ ...LEAVERS_PASSKEY, organizationId: org, userId: user.id });
      },
    );
    try {
      await deprovisionUser(org, user.id);
    } finally {
      hook.stop();
    }
    expect(hook.ran).toBe(true);
    expect(await listPasskeys(org, user.id)).toEqual([]);
    // An administrator reactivates the user (docs/scim.md): the sign-in stays ended.
    await setUserStatus(org, user.id, 'ACTIVE');
    expect(signInStillStands(await getUser(org, user.id, true), duringDelete)).toBe(false);
  });

  it("ends a sign-in made while a directory's deactivation was retried, also once an administrator reactivates the user", async () => {
    const org = (await createTestOrganization()).id;
    const { user } = await createUserFromDirectory(org, person('slow-patch@dir.example'), 'dir', 3600);
    let meanwhile = 0;
    const hook = beforeTransaction(
      (items) => items.some((item) => sameKey(item.Update?.Key, keys.user(org, user.id))),
      async () => {
        meanwhile = await instantAfter(Date.now());
        expect(signInStillStands(await getUser(org, user.id, true), meanwhile)).toBe(true);
        // Another change to the user meanwhile: the deactivation reads it again and retries.
        await updateUserProfile(org, user.id, { name: 'Renamed meanwhile' });
      },
    );
    try {
      await replaceUserFromDirectory(org, user.id, (current) =>
        person(current.email, { name: current.name, active: false }),
      );
    } finally {
      hook.stop();
    }
    expect(hook.ran).toBe(true);
    await setUserStatus(org, user.id, 'ACTIVE');
    expect(signInStillStands(await getUser(org, user.id, true), meanwhile)).toBe(false);
  });
});
