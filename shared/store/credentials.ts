import type { AuditEvent } from '../audit/record.js';
import { ChangedMeanwhile } from '../domain/errors.js';
import { auditWrites } from './audit-records.js';
import { UserEntity, type UserRecord } from './entities.js';
import { ttlSeconds } from './entity.js';
import { keys } from './keys.js';
import { digestOf, newOpaqueValue } from './opaque-values.js';
import { type OutboxEmail, type OutboxRef, outboxPut } from './outbox.js';
import {
  PasswordLinkEntity,
  type PasswordLinkPurpose,
  type PasswordLinkRecord,
} from './password-link-entity.js';
import {
  ConditionNotMet,
  conditionHeld,
  put,
  remove,
  transact,
  unchangedSinceRead,
  update,
  type Write,
} from './writes.js';

/**
 * What signing in changes on a user: emailed links that set a password, a password hash of
 * outdated parameters, the TOTP secret and recovery codes; and the per-address attempt counts. Every single-use value is consumed by one
 * conditional write, so two concurrent uses cannot both succeed.
 */

/** The user attribute holding the digest of the live link of each purpose. */
const LINK_ATTRIBUTE = { invitation: 'invitationDigest', reset: 'resetDigest' } as const;

/** A new link's token (for the email) and the writes that make it the user's only live one. */
export const passwordLinkWrites = (
  purpose: PasswordLinkPurpose,
  user: { organizationId: string; userId: string },
  lifetimeSeconds: number,
  now: number,
): { token: string; digest: string; link: Write } => {
  const token = newOpaqueValue();
  const digest = digestOf(token);
  const validUntil = now + lifetimeSeconds * 1000;
  const record: PasswordLinkRecord = { purpose, ...user, validUntil, expiresAt: ttlSeconds(validUntil) };
  return { token, digest, link: put(PasswordLinkEntity.item({ digest }, record)) };
};

/**
 * Points the user at a new link, voiding the one before it, while the user's email is still
 * `sentTo`, the address the link goes to (a changed email voids links sent to the old one).
 */
export const userLinkUpdate = (
  purpose: PasswordLinkPurpose,
  user: { organizationId: string; userId: string },
  digest: string,
  sentTo: string,
  fails: () => Error,
): Write =>
  update(
    keys.user(user.organizationId, user.userId),
    {
      update: 'SET #link = :digest',
      condition: 'attribute_exists(pk) AND email = :sentTo',
      names: { '#link': LINK_ATTRIBUTE[purpose] },
      values: { ':digest': digest, ':sentTo': sentTo },
      seeItemOnFailure: true,
    },
    (seen) => (seen ? new ChangedMeanwhile('User', 'The user was changed meanwhile; retry') : fails()),
  );

/**
 * At most one reset email a person this often: a request within it sends nothing and leaves the
 * link sent before alive, so nobody can flood a mailbox or keep voiding the person's own link
 * (OWASP Forgot Password Cheat Sheet).
 */
export const RESET_EMAIL_INTERVAL_MILLIS = 5 * 60 * 1000;

/**
 * A reset link with its email in the outbox (one transaction, with `audit`'s record when given);
 * undefined when the user is gone, or was sent one within RESET_EMAIL_INTERVAL_MILLIS.
 */
export const issueResetLink = async (
  user: UserRecord,
  email: Omit<OutboxEmail, 'type'>,
  lifetimeSeconds: number,
  now = Date.now(),
  audit?: AuditEvent,
): Promise<{ token: string; outbox: OutboxRef } | undefined> => {
  const owner = { organizationId: user.organizationId, userId: user.id };
  const { token, digest, link } = passwordLinkWrites('reset', owner, lifetimeSeconds, now);
  const outbox = outboxPut({ ...email, type: 'PASSWORD_RESET_EMAIL' }, now);
  try {
    await transact([
      link,
      update(
        keys.user(owner.organizationId, owner.userId),
        {
          update: 'SET resetDigest = :digest, resetRequestedAt = :now',
          // Still the address the link goes to: a changed email voids links sent to the old one.
          condition:
            'attribute_exists(pk) AND email = :sentTo AND (attribute_not_exists(resetRequestedAt) OR resetRequestedAt <= :since)',
          values: {
            ':digest': digest,
            ':now': now,
            ':since': now - RESET_EMAIL_INTERVAL_MILLIS,
            ':sentTo': email.to,
          },
        },
        () => new ConditionNotMet(),
      ),
      outbox.write,
      ...(audit ? await auditWrites(audit, now) : []),
    ]);
    return { token, outbox: outbox.ref };
  } catch (error) {
    if (error instanceof ConditionNotMet) return undefined;
    throw error;
  }
};

/** A link that can still be used, and its ACTIVE user; undefined for anything else. */
export const livePasswordLink = async (
  token: string,
  now = Date.now(),
): Promise<{ link: PasswordLinkRecord; user: UserRecord } | undefined> => {
  if (!/^[\w-]{43}$/.test(token)) return undefined;
  const digest = digestOf(token);
  const link = await PasswordLinkEntity.get({ digest });
  if (!link || link.validUntil <= now) return undefined;
  const user = await UserEntity.get(
    { organizationId: link.organizationId, id: link.userId },
    { consistent: true },
  );
  const current = user?.status === 'ACTIVE' && user[LINK_ATTRIBUTE[link.purpose]] === digest;
  return current ? { link, user } : undefined;
};

/**
 * Sets the password through a link and uses the link up (one transaction, with `audit`'s record
 * when given). The user's earlier sessions and refresh tokens end (`credentialsChangedAt`). False
 * when the link was used, voided or the user deactivated meanwhile.
 */
export const setPasswordWithLink = async (
  token: string,
  link: PasswordLinkRecord,
  passwordHash: string,
  now = Date.now(),
  audit?: AuditEvent,
): Promise<boolean> => {
  const digest = digestOf(token);
  const used = () => new ConditionNotMet();
  try {
    await transact([
      remove(PasswordLinkEntity.key({ digest }), { condition: 'attribute_exists(pk)' }, used),
      update(
        keys.user(link.organizationId, link.userId),
        {
          // Both links go: a password set through one leaves no other way to set it (an old join link).
          // The link went to the email the user still has (changing it voids the links), so that
          // email is proven: copied as it is (a path operand).
          update:
            'SET passwordHash = :hash, credentialsChangedAt = :changed, updatedAt = :now, verifiedEmail = email REMOVE invitationDigest, resetDigest',
          condition: '#link = :digest AND #status = :active',
          names: { '#link': LINK_ATTRIBUTE[link.purpose], '#status': 'status' },
          values: {
            ':hash': passwordHash,
            ':changed': now,
            ':now': now,
            ':digest': digest,
            ':active': 'ACTIVE',
          },
        },
        used,
      ),
      ...(audit ? await auditWrites(audit, now) : []),
    ]);
    return true;
  } catch (error) {
    if (error instanceof ConditionNotMet) return false;
    throw error;
  }
};

/**
 * Replaces a password hash by one of the same password with stronger parameters (at a sign-in),
 * only while the stored hash is still `previous`: a password set meanwhile is never overwritten.
 * Sessions stay (`credentialsChangedAt` is the password's, not its hash's). False when it changed.
 */
export const replacePasswordHash = (
  user: { organizationId: string; userId: string },
  previous: string,
  next: string,
): Promise<boolean> =>
  conditionHeld(
    update(
      keys.user(user.organizationId, user.userId),
      {
        update: 'SET passwordHash = :next',
        condition: 'passwordHash = :previous',
        values: { ':next': next, ':previous': previous },
      },
      () => new ConditionNotMet(),
    ),
  );

/**
 * Sets a new password the person chose (their own change, which checked the current one) with
 * `audit`'s record, only while the stored password is still the one checked: `read` is the hash
 * and `credentialsChangedAt` as read before the check. A reset committed during the check (the
 * person taking the account back from whoever knows the old password) is never overwritten.
 * Voids both emailed links and ends earlier sessions, as a reset does. False when it changed.
 */
export const replaceCheckedPassword = async (
  user: { organizationId: string; userId: string },
  read: { passwordHash: string; credentialsChangedAt: number | undefined },
  passwordHash: string,
  now: number,
  audit: AuditEvent,
): Promise<boolean> => {
  // A new hash of the same password (a sign-in's rehash) leaves credentialsChangedAt alone and
  // fails this too: rare, and the person repeats the change.
  const asRead = unchangedSinceRead(read);
  return conditionHeld(
    update(
      keys.user(user.organizationId, user.userId),
      {
        update:
          'SET passwordHash = :hash, credentialsChangedAt = :now, updatedAt = :now REMOVE invitationDigest, resetDigest',
        condition: asRead.condition,
        values: { ':hash': passwordHash, ':now': now, ...asRead.values },
      },
      () => new ConditionNotMet(),
    ),
    await auditWrites(audit, now),
  );
};

// TOTP and recovery codes ---------------------------------------------------------------------

/**
 * Stores a confirmed TOTP secret and hashed recovery codes, unless the user enrolled meanwhile;
 * with `audit`'s record in the same transaction when given.
 */
export const completeTotpEnrolment = async (
  user: { organizationId: string; userId: string },
  enrolment: { secret: string; step: number; recoveryCodeDigests: string[] },
  now = Date.now(),
  audit?: AuditEvent,
): Promise<boolean> =>
  conditionHeld(
    update(
      keys.user(user.organizationId, user.userId),
      {
        update:
          'SET totpSecret = :secret, totpLastStep = :step, recoveryCodeDigests = :codes, updatedAt = :now',
        condition: 'attribute_exists(pk) AND attribute_not_exists(totpSecret)',
        values: {
          ':secret': enrolment.secret,
          ':step': enrolment.step,
          ':codes': new Set(enrolment.recoveryCodeDigests),
          ':now': now,
        },
      },
      () => new ConditionNotMet(),
    ),
    audit ? await auditWrites(audit, now) : [],
  );

/**
 * Accepts a TOTP time step once: false if it (or a later one) was accepted before, or the stored
 * secret is no longer `secret` (as stored). `resealed`: the same secret sealed, to replace one
 * stored before sealing (shared/auth/totp-sealing.ts).
 */
export const acceptTotpStep = (
  user: { organizationId: string; userId: string },
  secret: string,
  step: number,
  resealed?: string,
): Promise<boolean> =>
  conditionHeld(
    update(
      keys.user(user.organizationId, user.userId),
      {
        update: `SET totpLastStep = :step${resealed ? ', totpSecret = :resealed' : ''}`,
        condition: 'totpSecret = :secret AND (attribute_not_exists(totpLastStep) OR totpLastStep < :step)',
        values: { ':step': step, ':secret': secret, ...(resealed ? { ':resealed': resealed } : {}) },
      },
      () => new ConditionNotMet(),
    ),
  );

/**
 * Replaces every recovery code of the user by `recoveryCodeDigests`, with `audit`'s record in the
 * same transaction: false, writing nothing, unless the user is still as read (`version`: two
 * replacements at once cannot both answer codes, of which only the later would work), the same
 * authenticator app (`secret`, as stored) is set up, and the person still stands for a session
 * signed in at `authTime` (ACTIVE, not deprovisioned, no password or sign-out since).
 */
export const replaceRecoveryCodes = async (
  user: Pick<UserRecord, 'organizationId' | 'id' | 'version'> & { totpSecret: string },
  authTime: number,
  recoveryCodeDigests: readonly string[],
  audit: AuditEvent,
  now = Date.now(),
): Promise<boolean> =>
  conditionHeld(
    update(
      keys.user(user.organizationId, user.id),
      {
        update: 'SET recoveryCodeDigests = :codes, updatedAt = :now, version = version + :one',
        condition:
          'version = :version AND totpSecret = :secret AND #status = :active AND attribute_not_exists(deprovisionedAt) AND (attribute_not_exists(credentialsChangedAt) OR credentialsChangedAt <= :authTime)',
        names: { '#status': 'status' },
        values: {
          ':codes': new Set(recoveryCodeDigests),
          ':now': now,
          ':one': 1,
          ':version': user.version,
          ':secret': user.totpSecret,
          ':active': 'ACTIVE',
          ':authTime': authTime,
        },
      },
      () => new ConditionNotMet(),
    ),
    await auditWrites(audit, now),
  );

/** Uses a recovery code up: false if it is not (or no longer) one of the user's. */
export const useRecoveryCode = (
  user: { organizationId: string; userId: string },
  /** The code's digests: as stored today, then as stored before salting (codes shown earlier). */
  codeDigests: readonly [string, ...string[]],
): Promise<boolean> =>
  conditionHeld(
    update(
      keys.user(user.organizationId, user.userId),
      {
        update: 'DELETE recoveryCodeDigests :used',
        condition: codeDigests
          .map((_digest, index) => `contains(recoveryCodeDigests, :d${index})`)
          .join(' OR '),
        values: {
          ':used': new Set(codeDigests),
          ...Object.fromEntries(codeDigests.map((digest, index) => [`:d${index}`, digest])),
        },
      },
      () => new ConditionNotMet(),
    ),
  );
