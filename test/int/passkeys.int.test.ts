import { describe, expect, it } from 'vitest';
import { Conflict, NotFound } from '../../shared/domain/errors.js';
import { MAX_PASSKEYS_PER_USER } from '../../shared/passkeys/rules.js';
import { keys } from '../../shared/store/keys.js';
import {
  addPasskey,
  credentialKeyOf,
  listPasskeys,
  passkeyOwner,
  removePasskey,
} from '../../shared/store/passkeys.js';
import { createUser, getUser } from '../../shared/store/user-repository.js';
import { createTestOrganization, getItem, useDatabase } from '../support/service.js';

useDatabase();

const newUser = async (organizationId: string) =>
  (
    await createUser({
      organizationId,
      email: `${Math.random().toString(36).slice(2)}@passkeys.example`,
      name: 'Holder',
      userType: 'STANDARD',
      createdBy: 'test',
    })
  ).user.id;

const passkeyOf = (organizationId: string, userId: string, credentialId: string) => ({
  organizationId,
  userId,
  credentialId,
  publicKey: 'pQECAyYgASFYIA',
  signCount: 0,
  transports: new Set(['internal', 'hybrid']),
  backupEligible: true,
  backedUp: true,
  aaguid: '00000000-0000-0000-0000-000000000000',
  name: `Passkey ${credentialId.slice(0, 6)}`,
});

describe('passkeys in the store', () => {
  it('adds, lists, finds the owner of, and removes a passkey, keeping the count', async () => {
    const org = (await createTestOrganization()).id;
    const userId = await newUser(org);
    const credentialId = `-${'a'.repeat(400)}_`; // WebAuthn ids may start with - or _ and run long
    const added = await addPasskey(passkeyOf(org, userId, credentialId));
    expect(added.credentialKey).toBe(credentialKeyOf(credentialId));
    expect(await listPasskeys(org, userId)).toEqual([added]);
    expect(await passkeyOwner(credentialId)).toEqual({ organizationId: org, userId });
    expect((await getUser(org, userId, true))?.passkeyCount).toBe(1);

    await expect(addPasskey(passkeyOf(org, userId, credentialId))).rejects.toBeInstanceOf(Conflict);
    await removePasskey(org, userId, added.credentialKey);
    expect(await listPasskeys(org, userId)).toEqual([]);
    expect(await passkeyOwner(credentialId)).toBeUndefined();
    expect(await getItem(keys.passkeyLookup(added.credentialKey))).toBeUndefined();
    expect((await getUser(org, userId, true))?.passkeyCount).toBe(0);
    await expect(removePasskey(org, userId, added.credentialKey)).rejects.toBeInstanceOf(NotFound);
  });

  it(`refuses an ${MAX_PASSKEYS_PER_USER + 1}th passkey with nothing written`, async () => {
    const org = (await createTestOrganization()).id;
    const userId = await newUser(org);
    for (let index = 0; index < MAX_PASSKEYS_PER_USER; index++)
      await addPasskey(passkeyOf(org, userId, `credential${index}`));
    await expect(addPasskey(passkeyOf(org, userId, 'one-too-many'))).rejects.toThrow(
      `at most ${MAX_PASSKEYS_PER_USER}`,
    );
    expect(await passkeyOwner('one-too-many')).toBeUndefined();
    expect(await listPasskeys(org, userId)).toHaveLength(MAX_PASSKEYS_PER_USER);
  });

  it("never removes another organization's or another user's passkey", async () => {
    const org = (await createTestOrganization()).id;
    const other = (await createTestOrganization()).id;
    const userId = await newUser(org);
    const neighbour = await newUser(org);
    const added = await addPasskey(passkeyOf(org, userId, 'kept-credential'));
    await expect(removePasskey(other, userId, added.credentialKey)).rejects.toBeInstanceOf(NotFound);
    await expect(removePasskey(org, neighbour, added.credentialKey)).rejects.toBeInstanceOf(NotFound);
    expect(await listPasskeys(org, userId)).toHaveLength(1);
    expect(await passkeyOwner('kept-credential')).toEqual({ organizationId: org, userId });
  });

  it('needs the user to exist', async () => {
    const org = (await createTestOrganization()).id;
    await expect(addPasskey(passkeyOf(org, 'no-such-user', 'orphan'))).rejects.toBeInstanceOf(NotFound);
    expect(await passkeyOwner('orphan')).toBeUndefined();
  });
});
