import { changesBetween } from '../audit/changes.js';
import { Conflict } from '../domain/errors.js';
import type { ProvisionedUser } from '../scim/user-resource.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { consentKeysOf, removeConsents } from './consent-repository.js';
import { EmailGuardEntity, UserEntity } from './entities.js';
import { externalIdEntry, externalIdRemoval, holdersOfExternalId } from './external-ids.js';
import { keys, LISTINGS } from './keys.js';
import { defaultGrants, getDefaultRole } from './organization-repository.js';
import { removeAllPasskeys } from './passkeys.js';
import { leaveGroups } from './scim-groups.js';
import { bucketCountDelta } from './sequenced-listing.js';
import { removeAllSsoLinks } from './sso-links.js';
import {
  createProvisionedUser,
  emailGuard,
  findUserByEmail,
  getUser,
  type ProvisioningFields,
  queueJoinEmail,
  type UserRecord,
  userNotFound,
  userTarget,
  versioned,
} from './user-repository.js';
import { assignments, remove, retryOnConcurrentChange, transact, type Write } from './writes.js';

/**
 * Users as a SCIM directory provisions them (docs/scim.md): the same users as everywhere, with
 * the directory's external id (findable through `EXTID#USER#…` entries in the organization's
 * partition, written in the user's transactions) and the parts of the name it sent. A user the
 * directory deleted stays, INACTIVE and marked deprovisioned, and is gone from SCIM's view.
 */

const fieldsOf = (desired: ProvisionedUser): ProvisioningFields => ({
  status: desired.active ? 'ACTIVE' : 'INACTIVE',
  ...(desired.externalId ? { externalId: desired.externalId } : {}),
  ...(desired.givenName ? { givenName: desired.givenName } : {}),
  ...(desired.familyName ? { familyName: desired.familyName } : {}),
});

/** The user, unless there is none or a directory deleted it. */
export const provisionedUser = async (orgId: string, userId: string): Promise<UserRecord | undefined> => {
  const user = await getUser(orgId, userId, true);
  return user && user.deprovisionedAt === undefined ? user : undefined;
};

/** The users holding `email` (at most one) that a directory sees. */
export const provisionedUsersByEmail = async (orgId: string, email: string): Promise<UserRecord[]> => {
  const user = await findUserByEmail(orgId, email);
  return user && user.deprovisionedAt === undefined ? [user] : [];
};

/** The users a directory gave this external id (one Query of the entries, one BatchGetItem). */
export const provisionedUsersByExternalId = async (
  orgId: string,
  externalId: string,
): Promise<UserRecord[]> => {
  const ids = await holdersOfExternalId(orgId, 'USER', externalId);
  if (ids.length === 0) return [];
  const read = await batchGetByKey(ids.map((id) => keys.user(orgId, id)));
  return read.items
    .map((item) => UserEntity.decode(item))
    .filter((user) => user.externalId === externalId && user.deprovisionedAt === undefined);
};

/**
 * Creates the user a directory describes. Its email held by a user the directory deleted earlier
 * brings that user back (the directory provisions the person again); held by anyone else, 409.
 */
export const createUserFromDirectory = async (
  orgId: string,
  desired: ProvisionedUser,
  createdBy: string,
  invitationSeconds: number,
) => {
  try {
    const created = await createProvisionedUser(
      { organizationId: orgId, email: desired.email, name: desired.name, userType: 'STANDARD', createdBy },
      {
        fields: fieldsOf(desired),
        writes: (userId) =>
          desired.externalId ? [externalIdEntry(orgId, 'USER', desired.externalId, userId)] : [],
      },
      invitationSeconds,
    );
    return { user: created.user, joinEmail: created.joinEmail };
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    const holder = await EmailGuardEntity.get({ organizationId: orgId, email: desired.email });
    const deleted = holder && (await getUser(orgId, holder.userId, true));
    if (!deleted || deleted.deprovisionedAt === undefined) throw error;
    // The address provisioned again may be another person's: the upstream identities the deleted
    // one signed in with no longer reach the account (docs/single-sign-on.md). First, so that a
    // failure leaves the user deprovisioned and the directory's retry finishes both.
    await removeAllSsoLinks(deleted);
    const { user } = await replaceUserFromDirectory(orgId, deleted.id, desired, { revive: true });
    // The leaver's credentials went with the DELETE: the person sets a password as a new one does.
    return { user, joinEmail: await queueJoinEmail(orgId, user.id, invitationSeconds) };
  }
};

/**
 * What a person signs in with, and the links that would set it: a DELETE clears them all, since a
 * directory that provisions the address again may give it to someone else (its passkeys are
 * items of their own, removed first; its SSO links go at the return: removeAllSsoLinks).
 */
const SIGN_IN_CREDENTIALS = [
  'passwordHash',
  'totpSecret',
  'totpLastStep',
  'recoveryCodeDigests',
  'invitationDigest',
  'resetDigest',
  'resetRequestedAt',
] as const;

/** What a revived user holds afresh: a new user's grants and type (user-repository.ts). */
const REVIVED_ACCESS = ['roles', 'managedRoles', 'userType'] as const;

/**
 * What the person who left was given, which a revived user does not keep: grants, the address
 * they proved, their picture. (Their additional properties stay: an administrator's to clear.)
 */
const LEAVER_ACCESS = [
  'roles',
  'managedRoles',
  'policies',
  'verifiedEmail',
  'pictureContentType',
  'pictureUpdatedAt',
  'pictureVersion',
  'pictureCleaned',
] as const;

/** A user's access as a revival's record shows it (credentials as the record redacts them). */
const access = (user: UserRecord) => ({
  roles: user.roles,
  managedRoles: user.managedRoles,
  policies: user.policies,
  userType: user.userType,
  verifiedEmail: user.verifiedEmail,
  picture: user.pictureContentType !== undefined,
  ...Object.fromEntries(SIGN_IN_CREDENTIALS.map((field) => [field, user[field]])),
});

/**
 * A transaction's items (writes.ts): a revival deletes the leaver's consents in its own
 * transaction while they fit beside its other items, and before it otherwise.
 */
const TRANSACTION_ITEMS = 100;

/**
 * Makes the user what the directory describes, in one transaction: name and its parts, email
 * (moving its uniqueness guard), external id (moving its entry), status (moving its listing
 * entry), with a `user.updated` and, when the status changes, a `user.status.changed` record.
 * A description that changes nothing writes nothing. Answers the user as it is and as it was.
 */
export const replaceUserFromDirectory = (
  orgId: string,
  userId: string,
  /** The user the directory describes, or how to work it out from the user as read (at each try). */
  describe: ProvisionedUser | ((current: UserRecord) => ProvisionedUser),
  options: { revive?: boolean } = {},
  clock: () => number = Date.now,
): Promise<{ user: UserRecord; before: UserRecord }> =>
  retryOnConcurrentChange(async () => {
    const [current, defaultRole, leaversConsents] = await Promise.all([
      getUser(orgId, userId, true),
      options.revive ? getDefaultRole(orgId) : undefined,
      options.revive ? consentKeysOf(orgId, userId) : [],
    ]);
    if (!current || (current.deprovisionedAt !== undefined && !options.revive)) throw userNotFound(userId)();
    // Read at each try, after the reads: a sign-in made before this write must not outlive it.
    const now = clock();
    const desired = typeof describe === 'function' ? describe(current) : describe;
    const status = desired.active ? 'ACTIVE' : 'INACTIVE';
    const next: UserRecord = {
      ...current,
      email: desired.email,
      name: desired.name,
      status,
      updatedAt: now,
      version: current.version + 1,
    };
    // Brought back for an address that may be someone else's now: with what a new user holds, not
    // what the person who left was given.
    const revived = current.deprovisionedAt !== undefined;
    if (revived) {
      // Nor what they signed in with (DELETE cleared it, but an administrator may have reactivated
      // them meanwhile: docs/scim.md), and every sign-in before now ends.
      for (const field of [...LEAVER_ACCESS, ...SIGN_IN_CREDENTIALS]) delete next[field];
      Object.assign(next, defaultGrants(defaultRole), { userType: 'STANDARD', credentialsChangedAt: now });
    }
    // The agreements the leaver accepted: whoever comes back has accepted none.
    const consents = revived ? leaversConsents : [];
    for (const field of ['externalId', 'givenName', 'familyName'] as const) {
      if (desired[field] === undefined) delete next[field];
      else next[field] = desired[field];
    }
    delete next.deprovisionedAt;
    const profile = (user: UserRecord) => ({
      email: user.email,
      name: user.name,
      externalId: user.externalId,
      givenName: user.givenName,
      familyName: user.familyName,
    });
    const profileChanges = {
      ...changesBetween(profile(current), profile(next)),
      ...(revived ? changesBetween(access(current), access(next)) : {}),
      ...(consents.length > 0 ? changesBetween({ consents: consents.length }, { consents: 0 }) : {}),
    };
    const statusChanges = current.status !== status || current.deprovisionedAt !== undefined;
    if (Object.keys(profileChanges).length === 0 && !statusChanges) return { user: current, before: current };

    const emailChanges = desired.email.toLowerCase() !== current.email.toLowerCase();
    const deactivates = status === 'INACTIVE' && current.status === 'ACTIVE';
    const set = assignments(
      {
        email: next.email,
        name: next.name,
        status,
        updatedAt: now,
        // A deactivation ends the person's sessions and refresh tokens (user-repository.ts), as
        // does a revival, whatever the status was.
        ...(revived || deactivates ? { credentialsChangedAt: now } : {}),
        [keys.listingSortKey]: keys.listingEntry(LISTINGS.users(status), current.sequence),
        ...keys.userSearchEntries(next),
        ...Object.fromEntries(
          (['externalId', 'givenName', 'familyName', ...(revived ? REVIVED_ACCESS : [])] as const)
            .filter((field) => next[field] !== undefined)
            .map((field) => [field, next[field]]),
        ),
      },
      's',
    );
    const removed = [
      ...new Set([
        ...(
          [
            'externalId',
            'givenName',
            'familyName',
            'deprovisionedAt',
            ...LEAVER_ACCESS,
            ...SIGN_IN_CREDENTIALS,
          ] as const
        ).filter((field) => next[field] === undefined && current[field] !== undefined),
        // A new address voids the join and reset links sent to the old one (user-repository.ts).
        ...(emailChanges ? (['invitationDigest', 'resetDigest', 'resetRequestedAt'] as const) : []),
        // A deactivation voids the reset link for good, as setUserStatus does: reactivating must not
        // bring back a link someone may have taken meanwhile. (A join link stays, as there.)
        ...(deactivates ? (['resetDigest', 'resetRequestedAt'] as const) : []),
      ]),
    ];
    const target = [userTarget(next)];
    const writes: (Write | false)[] = [
      versioned(current, {
        // REMOVE first: `versioned` appends the version's increment to the SET list at the end.
        update: `${removed.length > 0 ? `REMOVE ${removed.map((_field, index) => `#r${index}`).join(', ')} ` : ''}SET ${set.update}`,
        names: { ...set.names, ...Object.fromEntries(removed.map((field, index) => [`#r${index}`, field])) },
        values: set.values,
      }),
      emailChanges && emailGuard(orgId, next.email, userId),
      emailChanges && remove(EmailGuardEntity.key({ organizationId: orgId, email: current.email })),
      current.externalId !== next.externalId &&
        current.externalId !== undefined &&
        externalIdRemoval(orgId, 'USER', current.externalId, userId),
      current.externalId !== next.externalId &&
        next.externalId !== undefined &&
        externalIdEntry(orgId, 'USER', next.externalId, userId),
      current.status !== status &&
        bucketCountDelta(orgId, LISTINGS.users(current.status), current.sequence, -1),
      current.status !== status && bucketCountDelta(orgId, LISTINGS.users(status), current.sequence, 1),
    ];
    const records = [
      ...(Object.keys(profileChanges).length > 0
        ? await auditWrites(
            { organizationId: orgId, action: 'user.updated', targets: target, changes: profileChanges },
            now,
          )
        : []),
      ...(statusChanges
        ? await auditWrites(
            {
              organizationId: orgId,
              action: 'user.status.changed',
              targets: target,
              changes: changesBetween(
                { status: current.status, deprovisioned: current.deprovisionedAt !== undefined },
                { status, deprovisioned: false },
              ),
            },
            now,
          )
        : []),
    ];
    const inTransaction =
      records.length + writes.filter(Boolean).length + consents.length <= TRANSACTION_ITEMS;
    // Too many to fit: deleted first, so a failure leaves the user deprovisioned and the
    // directory's retry finishes it (deleting one already gone is no error).
    if (!inTransaction) await removeConsents(consents);
    await transact([...records, ...writes, ...(inTransaction ? consents.map((key) => remove(key)) : [])]);
    return { user: next, before: current };
  });

/** The leaver's picture goes with the DELETE too (its bytes then from the store: functions/scim.ts). */
const PICTURE = ['pictureContentType', 'pictureUpdatedAt', 'pictureVersion', 'pictureCleaned'] as const;

/**
 * What a directory's DELETE does (the service deletes users only by deactivation): the user's
 * passkeys are removed and the user leaves every group (no Group then lists a member SCIM answers
 * 404 for), then is INACTIVE, deprovisioned and without password, TOTP or recovery codes in one
 * transaction with its record; later reads through SCIM answer 404. Passkeys and groups first: a
 * DELETE that fails part-way leaves the user provisioned, and the directory's retry finishes it.
 * The last write needs the user in no group and without a passkey, so a group a concurrent PATCH
 * joined (or a passkey the account page added) meanwhile is removed in the next round; neither can
 * reach a deprovisioned user afterwards (addUserToGroup, addPasskey).
 */
export const deprovisionUser = async (
  orgId: string,
  userId: string,
  clock: () => number = Date.now,
): Promise<{ hadPicture: boolean }> => {
  let unchanged = await provisionedUser(orgId, userId);
  if (!unchanged) throw userNotFound(userId)();
  return retryOnConcurrentChange(async () => {
    let current = unchanged ?? (await provisionedUser(orgId, userId));
    unchanged = undefined;
    if (current?.passkeyCount || current?.userGroups?.size) {
      // Independent of each other: side by side.
      await Promise.all([
        current.passkeyCount && removeAllPasskeys(orgId, userId, clock()),
        current.userGroups?.size && leaveGroups(orgId, userId, [...current.userGroups]),
      ]);
      // Removing a passkey or leaving a group changes the user's item.
      current = await provisionedUser(orgId, userId);
    }
    if (!current) throw userNotFound(userId)();
    // Taken after the rounds above, at each try: a sign-in made while they ran ends with this write.
    const now = clock();
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'user.status.changed',
          targets: [userTarget(current)],
          changes: changesBetween(
            {
              status: current.status,
              deprovisioned: false,
              ...Object.fromEntries(SIGN_IN_CREDENTIALS.map((field) => [field, current[field]])),
              pictureContentType: current.pictureContentType,
            },
            { status: 'INACTIVE', deprovisioned: true },
          ),
        },
        now,
      )),
      versioned(current, {
        // As any deactivation: the person's sessions and refresh tokens end (user-repository.ts).
        // REMOVE first: `versioned` appends the version's increment to the SET list at the end.
        update: `REMOVE ${[...SIGN_IN_CREDENTIALS, ...PICTURE].join(', ')} SET #status = :status, #listing = :listing, deprovisionedAt = :now, updatedAt = :now, credentialsChangedAt = :now`,
        // In no group (an emptied set is no attribute) and without a passkey, as read.
        condition:
          'attribute_not_exists(userGroups) AND (attribute_not_exists(passkeyCount) OR passkeyCount = :none)',
        names: { '#status': 'status', '#listing': keys.listingSortKey },
        values: {
          ':status': 'INACTIVE',
          ':listing': keys.listingEntry(LISTINGS.users('INACTIVE'), current.sequence),
          ':now': now,
          ':none': 0,
        },
      }),
      current.status === 'ACTIVE' && bucketCountDelta(orgId, LISTINGS.users('ACTIVE'), current.sequence, -1),
      current.status === 'ACTIVE' && bucketCountDelta(orgId, LISTINGS.users('INACTIVE'), current.sequence, 1),
    ]);
    return { hadPicture: current.pictureUpdatedAt !== undefined };
  });
};
