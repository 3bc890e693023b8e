import { createHash } from 'node:crypto';
import { changesBetween } from '../audit/changes.js';
import { ChangedMeanwhile, Conflict, NotFound } from '../domain/errors.js';
import { MAX_PASSKEYS_PER_USER } from '../passkeys/rules.js';
import { auditWrites } from './audit-records.js';
import { keys } from './keys.js';
import { PasskeyEntity, PasskeyLookupEntity, type PasskeyRecord } from './passkey-entities.js';
import { queryPartition } from './query.js';
import { create, remove, transact, update, writeOne } from './writes.js';

/**
 * A person's passkeys (docs/passkeys.md): one item each in the organization's partition, a lookup
 * by credential, and a count on the user item that keeps them to MAX_PASSKEYS_PER_USER; each
 * change one transaction with its audit record.
 */

/** The key a credential id is stored and addressed under (the API's passkey id). */
export const credentialKeyOf = (credentialId: string): string =>
  createHash('sha256').update(credentialId).digest('hex');

const passkeyTarget = (passkey: Pick<PasskeyRecord, 'credentialKey' | 'name'>) => ({
  type: 'passkey',
  id: passkey.credentialKey,
  name: passkey.name,
});
const userTarget = (userId: string) => ({ type: 'user', id: userId });

export type NewPasskey = Omit<PasskeyRecord, 'credentialKey' | 'createdAt' | 'lastUsedAt' | 'flaggedAt'>;

/**
 * Stores a verified registration: refused (409) for an 11th passkey or a credential stored already,
 * and as no such user (404) unless the person is ACTIVE and not deprovisioned when it is written (a
 * directory's DELETE may commit between the check of the page and this write).
 */
export const addPasskey = async (passkey: NewPasskey, now = Date.now()): Promise<PasskeyRecord> => {
  const record: PasskeyRecord = {
    ...passkey,
    credentialKey: credentialKeyOf(passkey.credentialId),
    createdAt: now,
  };
  const { organizationId, userId } = record;
  await transact([
    create(
      PasskeyEntity.item(record, record),
      () => new Conflict('Passkey', 'This passkey is registered already'),
    ),
    create(
      PasskeyLookupEntity.item(record, { organizationId, userId }),
      () => new Conflict('Passkey', 'This passkey is registered already'),
    ),
    update(
      keys.user(organizationId, userId),
      {
        update: 'ADD passkeyCount :one',
        condition:
          'attribute_exists(pk) AND #status = :active AND attribute_not_exists(deprovisionedAt) AND (attribute_not_exists(passkeyCount) OR passkeyCount < :max)',
        names: { '#status': 'status' },
        values: { ':one': 1, ':max': MAX_PASSKEYS_PER_USER, ':active': 'ACTIVE' },
        seeItemOnFailure: true,
      },
      // No one who may sign in: nobody to enrol; else one who holds the most already.
      (seen) =>
        seen?.status === 'ACTIVE' && seen.deprovisionedAt === undefined
          ? new Conflict('Passkey', `A person holds at most ${MAX_PASSKEYS_PER_USER} passkeys`)
          : new NotFound('User', userId),
    ),
    ...(await auditWrites(
      {
        organizationId,
        action: 'passkey.registered',
        targets: [userTarget(userId), passkeyTarget(record)],
        changes: changesBetween(undefined, { name: record.name, backupEligible: record.backupEligible }),
      },
      now,
    )),
  ]);
  return record;
};

/** The person's passkeys, oldest first. */
export const listPasskeys = async (orgId: string, userId: string): Promise<PasskeyRecord[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.passkeyPrefix(userId), { consistent: true }))
    .map((item) => PasskeyEntity.decode(item))
    .sort((a, b) => a.createdAt - b.createdAt);

/** Removes one of the person's passkeys (404 for one that is not theirs), its lookup and its count. */
export const removePasskey = async (
  orgId: string,
  userId: string,
  credentialKey: string,
  now = Date.now(),
) => {
  const passkey = await PasskeyEntity.get({ organizationId: orgId, userId, credentialKey });
  if (!passkey) throw new NotFound('Passkey', credentialKey);
  await removeStoredPasskey(passkey, now);
};

/** Removes a passkey as read: it, its lookup and its count, with its record (404 once gone). */
const removeStoredPasskey = async (passkey: PasskeyRecord, now: number) => {
  const { organizationId: orgId, userId, credentialKey } = passkey;
  await transact([
    remove(
      keys.passkey(orgId, userId, credentialKey),
      { condition: 'attribute_exists(pk)' },
      () => new NotFound('Passkey', credentialKey),
    ),
    remove(keys.passkeyLookup(credentialKey)),
    update(keys.user(orgId, userId), { update: 'ADD passkeyCount :minusOne', values: { ':minusOne': -1 } }),
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'passkey.removed',
        targets: [userTarget(userId), passkeyTarget(passkey)],
      },
      now,
    )),
  ]);
};

/** Removes every passkey of the person, each with its record (a directory deleted them). */
export const removeAllPasskeys = async (orgId: string, userId: string, now = Date.now()): Promise<void> => {
  const passkeys = await listPasskeys(orgId, userId);
  await Promise.all(
    passkeys.map((passkey) =>
      removeStoredPasskey(passkey, now).catch((error: unknown) => {
        // Removed meanwhile (the person, an administrator): gone either way.
        if (!(error instanceof NotFound)) throw error;
      }),
    ),
  );
};

/** Whose a credential is (a strongly consistent read): a removed one is nobody's at once. */
export const passkeyOwner = (credentialId: string) =>
  PasskeyLookupEntity.get({ credentialKey: credentialKeyOf(credentialId) });

/**
 * Takes a verified assertion's counter and backup state: one conditional write that fails (false)
 * when the passkey was removed meanwhile or a concurrent assertion stored a counter at least as
 * high (the signCountVerdict rule, kept under concurrency).
 */
export const recordPasskeyUse = async (
  passkey: Pick<PasskeyRecord, 'organizationId' | 'userId' | 'credentialKey'>,
  use: { signCount: number; backedUp: boolean },
  now = Date.now(),
): Promise<boolean> => {
  try {
    await writeOne(
      update(
        keys.passkey(passkey.organizationId, passkey.userId, passkey.credentialKey),
        {
          update: 'SET signCount = :next, backedUp = :backedUp, lastUsedAt = :now',
          condition: 'attribute_exists(pk) AND (signCount < :next OR (signCount = :zero AND :next = :zero))',
          values: { ':next': use.signCount, ':backedUp': use.backedUp, ':now': now, ':zero': 0 },
        },
        () => new ChangedMeanwhile('Passkey', 'The passkey changed meanwhile'),
      ),
    );
    return true;
  } catch (error) {
    if (error instanceof Conflict) return false;
    throw error;
  }
};

/** Marks a passkey whose counter went backwards, for its person to review (it keeps working). */
export const flagPasskey = async (
  passkey: Pick<PasskeyRecord, 'organizationId' | 'userId' | 'credentialKey'>,
  now = Date.now(),
): Promise<void> => {
  await writeOne(
    update(
      keys.passkey(passkey.organizationId, passkey.userId, passkey.credentialKey),
      {
        update: 'SET flaggedAt = :now',
        condition: 'attribute_exists(pk)',
        values: { ':now': now },
      },
      () => new NotFound('Passkey', passkey.credentialKey),
    ),
  ).catch((error) => {
    if (!(error instanceof NotFound)) throw error;
  });
};

/** Renames one of the person's passkeys (404 for one that is not theirs), with its record. */
export const renamePasskey = async (
  orgId: string,
  userId: string,
  credentialKey: string,
  name: string,
  now = Date.now(),
): Promise<void> => {
  const passkey = await PasskeyEntity.get({ organizationId: orgId, userId, credentialKey });
  if (!passkey) throw new NotFound('Passkey', credentialKey);
  await transact([
    update(
      keys.passkey(orgId, userId, credentialKey),
      {
        update: 'SET #name = :name',
        condition: 'attribute_exists(pk)',
        names: { '#name': 'name' },
        values: { ':name': name },
      },
      () => new NotFound('Passkey', credentialKey),
    ),
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'passkey.renamed',
        targets: [userTarget(userId), passkeyTarget({ credentialKey, name })],
        changes: changesBetween({ name: passkey.name }, { name }),
      },
      now,
    )),
  ]);
};
