import { randomUUID } from 'node:crypto';
import type { UserType } from '../api/route-definition.js';
import { changesBetween } from '../audit/changes.js';
import type { AuditEvent } from '../audit/record.js';
import { Conflict, NotFound, PreconditionFailed } from '../domain/errors.js';
import type { UserStatus } from '../schemas/users.js';
import { ARCHIVED, type ArchivedIds, archivedIdsOf } from './archive.js';
import { auditWrites } from './audit-records.js';
import { batchGetByKey } from './batch.js';
import { passwordLinkWrites, userLinkUpdate } from './credentials.js';
import {
  CounterEntity,
  EmailGuardEntity,
  OrganizationEntity,
  UserEntity,
  type UserRecord,
} from './entities.js';
import { jointProjection } from './entity.js';
import { keys, LISTINGS } from './keys.js';
import { defaultGrants, defaultRoleOf } from './organization-repository.js';
import { type OutboxEmail, type OutboxRef, outboxPut } from './outbox.js';
import { queryPartition } from './query.js';
import { bucketCountDelta, nextSequence, readPage } from './sequenced-listing.js';
import {
  assignments,
  ConcurrentChange,
  ConditionNotMet,
  concurrentChange,
  conditionHeld,
  create,
  guard,
  remove,
  retryOnConcurrentChange,
  transact,
  update,
  type Write,
  writeOne,
} from './writes.js';

export type { UserRecord } from './entities.js';

/** A join email to send: its outbox record and the invitation link's token (never stored). */
export interface JoinEmail {
  email: OutboxEmail;
  outbox: OutboxRef;
  invitationToken: string;
  organizationName: string;
}

export const userNotFound = (userId: string) => () => new NotFound('User', userId);
const emailTaken = () => new Conflict('User', 'A user with this email already exists in the organization');

/** The writes of a join email: its invitation link (voiding an earlier one) and its outbox record. */
const joinEmailWrites = (
  user: UserRecord,
  organizationName: string,
  invitationSeconds: number,
  now: number,
) => {
  const owner = { organizationId: user.organizationId, userId: user.id };
  const invitation = passwordLinkWrites('invitation', owner, invitationSeconds, now);
  const email: OutboxEmail = { type: 'JOIN_EMAIL', ...owner, to: user.email, name: user.name };
  const outbox = outboxPut(email, now);
  return {
    digest: invitation.digest,
    writes: [invitation.link, outbox.write],
    joinEmail: { email, outbox: outbox.ref, invitationToken: invitation.token, organizationName },
  };
};

/** A user as the audit log names it. */
export const userTarget = (user: Pick<UserRecord, 'id' | 'email'>) => ({
  type: 'user',
  id: user.id,
  name: user.email,
});

/** What a record of a user's creation shows: the user, without bookkeeping (secrets are redacted anyway). */
const auditedFields = ({ organizationId: _org, sequence: _sequence, ...fields }: UserRecord) => fields;

/** The stored item of a user: its key and its place in the status listing. */
export const storedUser = (user: UserRecord) => UserEntity.item(user, user);

export const emailGuard = (orgId: string, email: string, userId: string) =>
  guard(EmailGuardEntity.key({ organizationId: orgId, email }), { userId }, emailTaken);

type NewUser = { organizationId: string; email: string; name: string; userType: UserType; createdBy: string };

/** What a SCIM directory keeps on a user beside the rest (shared/store/scim-users.ts). */
export type ProvisioningFields = Pick<UserRecord, 'status' | 'externalId' | 'givenName' | 'familyName'>;

/**
 * Creates a user: takes the next sequence number from the organization (which also answers the
 * default role), then writes the user, the email guard, the bucket count and the join email (when
 * an invitation is wanted) in one transaction. A duplicate email (any case) is a conflict, also
 * under concurrent creates.
 */
const insertUser = async (
  input: NewUser,
  invitationSeconds: number | undefined,
  now: number,
  provisioning?: { fields: ProvisioningFields; writes: (userId: string) => Write[] },
): Promise<{ user: UserRecord; joinEmail: JoinEmail | undefined }> => {
  const { sequence, organization } = await nextSequence(input.organizationId, 'userSequence');
  const defaultRole = defaultRoleOf(organization);
  const id = randomUUID();
  const join =
    invitationSeconds === undefined
      ? undefined
      : joinEmailWrites(
          { id, organizationId: input.organizationId, email: input.email, name: input.name } as UserRecord,
          organization.name,
          invitationSeconds,
          now,
        );
  const base: UserRecord = {
    id,
    organizationId: input.organizationId,
    email: input.email,
    name: input.name,
    status: 'ACTIVE',
    userType: input.userType,
    sequence,
    createdAt: now,
    updatedAt: now,
    createdBy: input.createdBy,
    ...defaultGrants(defaultRole),
    canSendEmail: true,
    isInitial: false,
    ...(join ? { invitationDigest: join.digest } : {}),
    ...provisioning?.fields,
    version: 1,
  };
  // Until some user holds it, try to claim "initial" in the same transaction; a concurrent
  // creation may win it, and then this user is created as an ordinary one.
  let claimInitial = organization.initialUserId === undefined;
  for (;;) {
    const user = { ...base, isInitial: claimInitial };
    try {
      await transact([
        ...(await auditWrites(
          {
            organizationId: input.organizationId,
            action: 'user.created',
            targets: [userTarget(user)],
            changes: changesBetween(undefined, auditedFields(user)),
          },
          now,
        )),
        create(storedUser(user), () => new Conflict('User', 'A user with this id already exists')),
        emailGuard(input.organizationId, input.email, user.id),
        bucketCountDelta(input.organizationId, LISTINGS.users(user.status), sequence, 1),
        ...(join?.writes ?? []),
        ...(provisioning?.writes(user.id) ?? []),
        claimInitial &&
          update(
            keys.organization(input.organizationId),
            {
              update: 'SET initialUserId = :id',
              condition: 'attribute_not_exists(initialUserId)',
              values: { ':id': user.id },
            },
            // Losing the claim to a concurrent creation only means "not initial".
            concurrentChange,
          ),
      ]);
      return { user, joinEmail: join?.joinEmail };
    } catch (error) {
      if (!claimInitial || !(error instanceof ConcurrentChange)) throw error;
      claimInitial = false;
    }
  }
};

export const createUser = async (
  input: NewUser,
  invitationSeconds = DEFAULT_INVITATION_SECONDS,
  now = Date.now(),
): Promise<{ user: UserRecord; joinEmail: JoinEmail }> => {
  const { user, joinEmail } = await insertUser(input, invitationSeconds, now);
  return { user, joinEmail: joinEmail as JoinEmail };
};

/** A user a SCIM directory provisions: the join email as for any user, and what the directory keeps. */
export const createProvisionedUser = async (
  input: NewUser,
  provisioning: { fields: ProvisioningFields; writes: (userId: string) => Write[] },
  invitationSeconds = DEFAULT_INVITATION_SECONDS,
  now = Date.now(),
): Promise<{ user: UserRecord; joinEmail: JoinEmail }> => {
  const { user, joinEmail } = await insertUser(input, invitationSeconds, now, provisioning);
  return { user, joinEmail: joinEmail as JoinEmail };
};

/** A person an SSO provider vouched for, created at their first sign-in (just in time): no invitation, no password. */
export const createFederatedUser = async (input: NewUser, now = Date.now()): Promise<UserRecord> =>
  (await insertUser(input, undefined, now)).user;

export const getUser = (orgId: string, userId: string, consistent = false): Promise<UserRecord | undefined> =>
  UserEntity.get({ organizationId: orgId, id: userId }, { consistent });

/** The user holding an email in the organization (emails are unique per organization only). */
export const findUserByEmail = async (orgId: string, email: string): Promise<UserRecord | undefined> => {
  const guard = await EmailGuardEntity.get({ organizationId: orgId, email });
  return guard ? getUser(orgId, guard.userId, true) : undefined;
};

const STANDING = UserEntity.projection('status', 'credentialsChangedAt', 'userType');

/**
 * Whether a user may still act, and since when their earlier sign-ins are void (projected read),
 * for the per-request check of a token's principal.
 */
export const getUserStanding = (orgId: string, userId: string) =>
  UserEntity.getProjected({ organizationId: orgId, id: userId }, STANDING, { consistent: false });

export const requireUser = async (orgId: string, userId: string, consistent = false): Promise<UserRecord> => {
  const user = await getUser(orgId, userId, consistent);
  if (!user) throw userNotFound(userId)();
  return user;
};

/**
 * What a user list or search shows (and filters by); hashes, secrets and additional properties
 * stay out of list reads.
 */
export const LISTED = UserEntity.projection(
  'id',
  'email',
  'name',
  'status',
  'userType',
  'sequence',
  'pictureUpdatedAt',
  'policies',
  'roles',
  'managedRoles',
  'canSendEmail',
  'isInitial',
  'userGroups',
);
export type ListedUser = ReturnType<typeof LISTED.decode>;

/**
 * A user as answers show it, with the organization's archived ids that hide references: one
 * BatchGetItem rather than two GetItems, as each SDK call costs CPU (docs/performance.md, "Lambda settings").
 */
export const presentableUser = async (
  orgId: string,
  userId: string,
): Promise<{ user: ListedUser; archived: ArchivedIds }> => {
  const userKey = UserEntity.key({ organizationId: orgId, id: userId });
  const organizationKey = OrganizationEntity.key({ id: orgId });
  const read = await batchGetByKey([userKey, organizationKey], jointProjection(LISTED, ARCHIVED));
  const user = read.get(userKey);
  if (!user) throw userNotFound(userId)();
  const organization = read.get(organizationKey);
  return {
    user: LISTED.decode(user),
    archived: archivedIdsOf(organization && ARCHIVED.decode(organization)),
  };
};

/** One page of the organization's users of one status, in creation order (listed attributes only). */
export const listUsers = async (
  orgId: string,
  status: UserStatus,
  page: number,
  pageSize: number,
  after?: number,
) => {
  const { items, hasMore, nextAfter, consumedCapacity } = await readPage(
    orgId,
    LISTINGS.users(status),
    page,
    pageSize,
    LISTED,
    { after },
  );
  return { users: items, hasMore, nextAfter, consumedCapacity };
};

/** The user's own item, changed only if nobody changed it since it was read (its version). */
export const versioned = (
  current: Pick<UserRecord, 'organizationId' | 'id' | 'version'>,
  expression: {
    update: string;
    names?: Record<string, string>;
    values?: Record<string, unknown>;
    /** More that must hold; when it does not, the write fails as a concurrent change too. */
    condition?: string;
  },
) =>
  update(
    keys.user(current.organizationId, current.id),
    {
      update: `${expression.update}, version = version + :one`,
      condition: `version = :version${expression.condition ? ` AND ${expression.condition}` : ''}`,
      names: expression.names ?? {},
      values: { ...expression.values, ':one': 1, ':version': current.version },
    },
    concurrentChange,
  );

/** Renames the user and, when it changes, moves the email guard in the same transaction. */
export const updateUserProfile = (
  orgId: string,
  userId: string,
  changes: { name: string; email?: string },
  now = Date.now(),
): Promise<UserRecord> =>
  retryOnConcurrentChange(async () => {
    const current = await requireUser(orgId, userId, true);
    const email = changes.email ?? current.email;
    const emailChanges = email.toLowerCase() !== current.email.toLowerCase();
    // Also written when they do not change: a user written before search existed gains them.
    const searchEntries = assignments(
      keys.userSearchEntries({ organizationId: orgId, id: userId, email, name: changes.name }),
      'i',
    );
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'user.updated',
          targets: [userTarget(current)],
          changes: changesBetween(
            { name: current.name, email: current.email },
            { name: changes.name, email },
          ),
        },
        now,
      )),
      versioned(current, {
        // A new address voids the join and reset links sent to the old one (OWASP Forgot Password
        // Cheat Sheet); REMOVE first, as `versioned` adds to the SET list at its end.
        update: `${emailChanges ? 'REMOVE invitationDigest, resetDigest, resetRequestedAt ' : ''}SET #name = :name, email = :email, updatedAt = :now, ${searchEntries.update}`,
        names: { '#name': 'name', ...searchEntries.names },
        values: { ':name': changes.name, ':email': email, ':now': now, ...searchEntries.values },
      }),
      emailChanges && emailGuard(orgId, email, userId),
      emailChanges && remove(EmailGuardEntity.key({ organizationId: orgId, email: current.email })),
    ]);
    return { ...current, name: changes.name, email, updatedAt: now, version: current.version + 1 };
  });

/** Moves the user between the ACTIVE and INACTIVE listings, keeping the bucket counts exact. */
export const setUserStatus = (
  orgId: string,
  userId: string,
  status: UserStatus,
  clock: () => number = Date.now,
) =>
  retryOnConcurrentChange(async () => {
    const current = await requireUser(orgId, userId, true);
    if (current.status === status) return;
    // Taken at each try, after the read: a sign-in made before this write must not outlive it.
    const now = clock();
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'user.status.changed',
          targets: [userTarget(current)],
          changes: { status: { from: current.status, to: status } },
        },
        now,
      )),
      versioned(current, {
        // Deactivating ends the person's sessions, refresh tokens and reset link for good (as a new
        // password does): reactivating must not bring back what someone may have taken meanwhile.
        // A join link stays: resending it to a person reactivated is how they get in. The reset
        // email's interval goes with the link it guarded, so a reactivated person can ask for a new
        // one at once. REMOVE first: `versioned` appends the version's increment to the SET list.
        update: `${status === 'INACTIVE' ? 'REMOVE resetDigest, resetRequestedAt ' : ''}SET #status = :status, #listing = :listing, updatedAt = :now${
          status === 'INACTIVE' ? ', credentialsChangedAt = :now' : ''
        }`,
        names: { '#status': 'status', '#listing': keys.listingSortKey },
        values: {
          ':status': status,
          ':listing': keys.listingEntry(LISTINGS.users(status), current.sequence),
          ':now': now,
        },
      }),
      bucketCountDelta(orgId, LISTINGS.users(current.status), current.sequence, -1),
      bucketCountDelta(orgId, LISTINGS.users(status), current.sequence, 1),
    ]);
  });

/** Attributes of a user that are set or removed outright, without reading the user first. */
type DirectAttributes = Pick<
  UserRecord,
  | 'userType'
  | 'credentialsChangedAt'
  | 'invitationDigest'
  | 'resetDigest'
  | 'resetRequestedAt'
  | 'totpSecret'
  | 'totpLastStep'
  | 'recoveryCodeDigests'
  | 'passwordHash'
  | 'verifiedEmail'
  | 'pictureContentType'
  | 'pictureUpdatedAt'
  | 'pictureVersion'
  | 'pictureCleaned'
>;

/** The audit record of a change made with updateUserAttributes; the caller knows what changed. */
export type UserAttributesAudit = Omit<AuditEvent, 'organizationId'>;

/**
 * Sets and removes attributes of an existing user (MFA secret, password hash, picture). A caller
 * that records the change passes `audit`: its record rides in the same transaction. Sign-in's
 * callers record their own outcomes and pass none.
 */
export const updateUserAttributes = async (
  orgId: string,
  userId: string,
  set: Partial<DirectAttributes>,
  removed: (keyof DirectAttributes)[] = [],
  now = Date.now(),
  audit?: UserAttributesAudit,
): Promise<void> => {
  const assigned = assignments({ ...set, updatedAt: now }, 's');
  const write = update(
    keys.user(orgId, userId),
    {
      update: [
        `SET ${assigned.update}`,
        ...(removed.length > 0 ? [`REMOVE ${removed.map((_name, index) => `#r${index}`).join(', ')}`] : []),
      ].join(' '),
      condition: 'attribute_exists(pk)',
      names: { ...assigned.names, ...Object.fromEntries(removed.map((name, index) => [`#r${index}`, name])) },
      values: assigned.values,
    },
    userNotFound(userId),
  );
  if (!audit) {
    await writeOne(write);
    return;
  }
  await transact([write, ...(await auditWrites({ organizationId: orgId, ...audit }, now))]);
};

/**
 * Signs the user out everywhere: every session, refresh token and access token whose sign-in or
 * issue is older than `now` is refused from then on, as after a new password (each compares its
 * time with `credentialsChangedAt`). One write, with its record (no `changes`: the action says
 * it); nothing else of the user changes. `credentialsChangedAt` only moves forward: a later
 * ending committed meanwhile (a new password, a deactivation) covers this one, which then writes
 * its record alone.
 */
export const endUserSessions = async (user: UserRecord, now = Date.now()): Promise<void> => {
  const { organizationId, id } = user;
  const record = await auditWrites(
    { organizationId, action: 'user.sessions.ended', targets: [userTarget(user)] },
    now,
  );
  const ended = await conditionHeld(
    update(
      keys.user(organizationId, id),
      {
        update: 'SET credentialsChangedAt = :now, updatedAt = :now',
        condition:
          'attribute_exists(pk) AND (attribute_not_exists(credentialsChangedAt) OR credentialsChangedAt < :now)',
        values: { ':now': now },
      },
      () => new ConditionNotMet(),
    ),
    record,
  );
  if (ended) return;
  await requireUser(organizationId, id, true);
  await transact(record);
};

/** Sets the user type; setting the type the user has already changes (and records) nothing. */
export const setUserType = (orgId: string, userId: string, userType: UserType, now = Date.now()) =>
  retryOnConcurrentChange(async () => {
    const current = await requireUser(orgId, userId, true);
    if (current.userType === userType) return;
    await transact([
      ...(await auditWrites(
        {
          organizationId: orgId,
          action: 'user.type.changed',
          targets: [userTarget(current)],
          changes: changesBetween({ userType: current.userType }, { userType }),
        },
        now,
      )),
      versioned(current, {
        update: 'SET userType = :type, updatedAt = :now',
        values: { ':type': userType, ':now': now },
      }),
    ]);
  });

const MFA = OrganizationEntity.projection('mfaEnabled');
const NAME = OrganizationEntity.projection('name');

/** DECISIONS.md: an invitation link is valid 7 days (the functions pass the configured lifetime). */
const DEFAULT_INVITATION_SECONDS = 7 * 24 * 3600;

/** What an MFA reset clears: the TOTP secret, its last step and the recovery codes. */
const MFA_ATTRIBUTES = ['totpSecret', 'totpLastStep', 'recoveryCodeDigests'] as const;

/**
 * Clears the user's TOTP secret so it enrolls again; only where the organization uses MFA. A user
 * not enrolled has nothing to clear: nothing is written or recorded.
 */
/** Resets a user's MFA; answers the user when something was reset (undefined: nothing enrolled). */
export const resetMfa = async (
  orgId: string,
  userId: string,
  now = Date.now(),
): Promise<UserRecord | undefined> => {
  // The first attempt uses the user read beside the organization; a retry reads it again.
  let firstRead: Promise<UserRecord> | undefined = requireUser(orgId, userId, true);
  const [organization] = await Promise.all([
    OrganizationEntity.getProjected({ id: orgId }, MFA, { consistent: false }),
    firstRead,
  ]);
  if (!organization?.mfaEnabled) {
    throw new PreconditionFailed('The organization does not use multi-factor authentication');
  }
  return retryOnConcurrentChange(async () => {
    const current = await (firstRead ?? requireUser(orgId, userId, true));
    firstRead = undefined;
    const enrolled = Object.fromEntries(MFA_ATTRIBUTES.map((name) => [name, current[name]]));
    const changes = changesBetween(enrolled, undefined);
    if (Object.keys(changes).length === 0) return undefined;
    await transact([
      ...(await auditWrites(
        { organizationId: orgId, action: 'mfa.reset', targets: [userTarget(current)], changes },
        now,
      )),
      versioned(current, {
        update: `REMOVE ${MFA_ATTRIBUTES.join(', ')} SET updatedAt = :now`,
        values: { ':now': now },
      }),
    ]);
    return current;
  });
};

/** Queues the join email again, with a new invitation link voiding the earlier one. */
export const queueJoinEmail = async (
  orgId: string,
  userId: string,
  invitationSeconds = DEFAULT_INVITATION_SECONDS,
  now = Date.now(),
): Promise<JoinEmail> => {
  const [user, organization] = await Promise.all([
    requireUser(orgId, userId),
    OrganizationEntity.getProjected({ id: orgId }, NAME, { consistent: false }),
  ]);
  const join = joinEmailWrites(user, organization?.name ?? orgId, invitationSeconds, now);
  await transact([
    ...(await auditWrites(
      {
        organizationId: orgId,
        action: 'invitation.sent',
        targets: [userTarget(user)],
        changes: changesBetween(
          { invitationDigest: user.invitationDigest },
          { invitationDigest: join.digest },
        ),
      },
      now,
    )),
    userLinkUpdate(
      'invitation',
      { organizationId: orgId, userId },
      join.digest,
      user.email,
      userNotFound(userId),
    ),
    ...join.writes,
  ]);
  return join.joinEmail;
};

/** Names of additional properties that at least one user of the organization holds. */
export const listAdditionalPropertyNames = async (orgId: string): Promise<string[]> =>
  (await queryPartition(keys.organizationPartition(orgId), keys.userPropertyNamePrefix))
    .filter((item) => CounterEntity.decode(item).count > 0)
    .map((item) => String(item.sk).slice(keys.userPropertyNamePrefix.length));
