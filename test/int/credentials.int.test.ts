import { randomUUID } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reloadConfig } from '../../shared/config.js';
import { signInStillStands } from '../../shared/domain/authorization.js';
import {
  acceptTotpStep,
  completeTotpEnrolment,
  issueResetLink,
  livePasswordLink,
  RESET_EMAIL_INTERVAL_MILLIS,
  replacePasswordHash,
  setPasswordWithLink,
  useRecoveryCode,
} from '../../shared/store/credentials.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { digestOf } from '../../shared/store/opaque-values.js';
import {
  createUser,
  getUser,
  queueJoinEmail,
  setUserStatus,
  type UserRecord,
  updateUserProfile,
} from '../../shared/store/user-repository.js';
import { fileTable, useDatabase } from '../support/database.js';
import { beforeTransaction, instantAfter, sameKey } from '../support/interleave.js';
import { createTestOrganization, getItem, uniqueEmail } from '../support/records.js';
import { measureRoundTrips } from '../support/round-trips.js';

/**
 * What signing in changes on a user (shared/store/credentials.ts): the emailed links that set a
 * password, each live until used, replaced or expired; a password hash replaced only while it is
 * the one read; the TOTP secret, its time steps and the recovery codes, each used once.
 */

useDatabase();

const NOW = Date.UTC(2031, 0, 1, 12);
const HOUR = 3_600_000;

afterEach(() => {
  process.env.IDP_TABLE_NAME = fileTable();
  reloadConfig();
});

let organizationId: string;
beforeAll(async () => {
  organizationId = (await createTestOrganization()).id;
});

/** A new person, invited (the invitation link is live for a week). */
const invited = async () => {
  const { user, joinEmail } = await createUser(
    { organizationId, email: uniqueEmail(), name: 'P', userType: 'STANDARD', createdBy: 'test' },
    7 * 24 * 3600,
    NOW,
  );
  return { user, invitation: joinEmail.invitationToken };
};

const resetLink = async (user: UserRecord, now = NOW) => {
  const email = { organizationId, userId: user.id, to: user.email, name: user.name };
  const issued = await issueResetLink(user, email, 3600, now);
  if (!issued) throw new Error('No reset link');
  return issued;
};

const owner = (user: UserRecord) => ({ organizationId, userId: user.id });

describe('password links', () => {
  it('are live until they expire, for their ACTIVE user', async () => {
    const { user, invitation } = await invited();
    const live = await livePasswordLink(invitation, NOW + 7 * 24 * HOUR - 1);
    expect(live?.link).toMatchObject({
      purpose: 'invitation',
      organizationId,
      userId: user.id,
      validUntil: NOW + 7 * 24 * HOUR,
    });
    expect(live?.user.id).toBe(user.id);
    expect(await livePasswordLink(invitation, NOW + 7 * 24 * HOUR)).toBeUndefined();
    await setUserStatus(organizationId, user.id, 'INACTIVE');
    expect(await livePasswordLink(invitation, NOW)).toBeUndefined();
  });

  it('a deactivation retried after a concurrent change ends a sign-in made meanwhile, also after a reactivation', async () => {
    const { user } = await invited();
    let meanwhile = 0;
    const hook = beforeTransaction(
      (items) =>
        items.some(
          (item) =>
            sameKey(item.Update?.Key, keys.user(organizationId, user.id)) &&
            (item.Update?.UpdateExpression?.includes('#status = :status') ?? false),
        ),
      async () => {
        meanwhile = await instantAfter(Date.now());
        // Positive control: the sign-in stood when it was made.
        expect(signInStillStands(await getUser(organizationId, user.id, true), meanwhile)).toBe(true);
        // Another change to the user meanwhile: the deactivation reads it again and retries.
        await updateUserProfile(organizationId, user.id, { name: 'Renamed meanwhile' });
      },
    );
    try {
      await setUserStatus(organizationId, user.id, 'INACTIVE');
    } finally {
      hook.stop();
    }
    expect(hook.ran).toBe(true);
    expect((await getUser(organizationId, user.id, true))?.name).toBe('Renamed meanwhile');
    await setUserStatus(organizationId, user.id, 'ACTIVE');
    expect(signInStillStands(await getUser(organizationId, user.id, true), meanwhile)).toBe(false);
  });

  it('a reset link does not come back with a reactivation; a join link does', async () => {
    const { user, invitation } = await invited();
    const reset = await resetLink(user);
    // Positive control: both live before the deactivation.
    expect(await livePasswordLink(reset.token, NOW)).toBeDefined();
    expect(await livePasswordLink(invitation, NOW)).toBeDefined();
    await setUserStatus(organizationId, user.id, 'INACTIVE');
    await setUserStatus(organizationId, user.id, 'ACTIVE');
    expect(await livePasswordLink(reset.token, NOW)).toBeUndefined();
    expect(await livePasswordLink(invitation, NOW)).toBeDefined();
  });

  it('are not issued to an address the email changed from meanwhile (a reset, a join email)', async () => {
    const changedWhileSending = (user: UserRecord) =>
      beforeTransaction(
        (items) =>
          items.some((item) =>
            /resetDigest|invitationDigest|#link/.test(item.Update?.UpdateExpression ?? ''),
          ),
        () => updateUserProfile(organizationId, user.id, { name: 'P', email: uniqueEmail('moved') }),
      );
    // Positive control: with no change meanwhile, both are issued to the address read.
    const control = (await invited()).user;
    expect(await resetLink(control, NOW + 10 * 60_000)).toBeDefined();
    expect((await queueJoinEmail(organizationId, control.id, 3600, NOW)).email.to).toBe(control.email);

    const reset = (await invited()).user;
    const change = changedWhileSending(reset);
    const issued = await issueResetLink(
      reset,
      { organizationId, userId: reset.id, to: reset.email, name: reset.name },
      3600,
      NOW,
    ).finally(change.stop);
    expect(change.ran).toBe(true);
    expect(issued).toBeUndefined();

    const joining = (await invited()).user;
    const joinChange = changedWhileSending(joining);
    await expect(
      queueJoinEmail(organizationId, joining.id, 3600, NOW).finally(joinChange.stop),
    ).rejects.toThrow('changed meanwhile');
    expect(joinChange.ran).toBe(true);
  });

  it('are read only when they look like one, and then with their user read consistently', async () => {
    const { user, invitation } = await invited();
    const live = await measureRoundTrips('live link', () => livePasswordLink(invitation, NOW));
    expect(live.result).toBeDefined();
    const userRead = live.recorded.find((call) => JSON.stringify(call.input).includes(`USER#${user.id}`));
    expect(userRead?.input).toMatchObject({ ConsistentRead: true });
    for (const token of [
      `${invitation}x`,
      `x${invitation}`,
      invitation.slice(1),
      `${invitation.slice(1)}+`,
      '',
    ]) {
      const read = await measureRoundTrips('malformed link', () => livePasswordLink(token, NOW));
      expect(read.result).toBeUndefined();
      expect(read.commands).toEqual([]);
    }
  });

  it('of one purpose replace the earlier one of that purpose only', async () => {
    const { user, invitation } = await invited();
    const first = await resetLink(user);
    expect(await livePasswordLink(first.token, NOW)).toMatchObject({
      link: { purpose: 'reset', validUntil: NOW + HOUR },
    });
    // Within the interval between reset emails another request issues nothing; the first stays.
    const email = { organizationId, userId: user.id, to: user.email, name: user.name };
    expect(await issueResetLink(user, email, 3600, NOW + RESET_EMAIL_INTERVAL_MILLIS - 1)).toBeUndefined();
    expect(await livePasswordLink(first.token, NOW)).toBeDefined();
    const second = await resetLink(user, NOW + RESET_EMAIL_INTERVAL_MILLIS);
    expect(await livePasswordLink(first.token, NOW)).toBeUndefined();
    expect(await livePasswordLink(second.token, NOW)).toBeDefined();
    expect(await livePasswordLink(invitation, NOW)).toBeDefined();
    expect(
      await getItem(keys.outboxMessage(organizationId, second.outbox.createdAt, second.outbox.messageId)),
    ).toMatchObject({
      type: 'PASSWORD_RESET_EMAIL',
      userId: user.id,
      to: user.email,
    });
  });

  it('are not issued for a user who is gone', async () => {
    const { user } = await invited();
    const email = { organizationId, userId: 'gone', to: 'gone@example.com', name: 'Gone' };
    expect(await issueResetLink({ ...user, id: randomUUID() }, email, 3600, NOW)).toBeUndefined();
  });

  it('set the password once, ending earlier sign-ins, and are used up', async () => {
    const { user, invitation } = await invited();
    const live = await livePasswordLink(invitation, NOW);
    if (!live) throw new Error('not live');
    expect(await setPasswordWithLink(invitation, live.link, 'hash-1', NOW + 1000)).toBe(true);
    const stored = await getUser(organizationId, user.id, true);
    expect(stored).toMatchObject({
      passwordHash: 'hash-1',
      credentialsChangedAt: NOW + 1000,
      updatedAt: NOW + 1000,
    });
    expect(stored).not.toHaveProperty('invitationDigest');
    expect(await getItem(keys.passwordLink(digestOf(invitation)))).toBeUndefined();
    expect(await setPasswordWithLink(invitation, live.link, 'hash-2', NOW + 2000)).toBe(false);
    expect((await getUser(organizationId, user.id, true))?.passwordHash).toBe('hash-1');
  });

  it('set nothing once the link expired and left the table, though it was read live', async () => {
    const { user } = await invited();
    const reset = await resetLink(user);
    const link = (await livePasswordLink(reset.token, NOW))?.link;
    // DynamoDB's TTL removes the item between the read and the write.
    await db().send(
      new DeleteCommand({ TableName: tableName(), Key: keys.passwordLink(digestOf(reset.token)) }),
    );
    expect(await setPasswordWithLink(reset.token, link as never, 'hash', NOW)).toBe(false);
    expect((await getUser(organizationId, user.id, true))?.passwordHash).toBeUndefined();
  });

  it('set nothing once replaced, or once their user is deactivated', async () => {
    const { user } = await invited();
    const first = await resetLink(user);
    const firstLink = (await livePasswordLink(first.token, NOW))?.link;
    await resetLink(user, NOW + RESET_EMAIL_INTERVAL_MILLIS);
    expect(await setPasswordWithLink(first.token, firstLink as never, 'hash', NOW)).toBe(false);

    const other = (await invited()).user;
    const reset = await resetLink(other);
    const link = (await livePasswordLink(reset.token, NOW))?.link;
    await setUserStatus(organizationId, other.id, 'INACTIVE');
    expect(await setPasswordWithLink(reset.token, link as never, 'hash', NOW)).toBe(false);
    expect((await getUser(organizationId, other.id, true))?.passwordHash).toBeUndefined();
  });
});

describe('a password hash', () => {
  it('is replaced only while it is the one read', async () => {
    const { user, invitation } = await invited();
    const live = await livePasswordLink(invitation, NOW);
    await setPasswordWithLink(invitation, live?.link as never, 'old', NOW);
    expect(await replacePasswordHash(owner(user), 'other', 'new')).toBe(false);
    expect(await replacePasswordHash(owner(user), 'old', 'new')).toBe(true);
    expect(await getUser(organizationId, user.id, true)).toMatchObject({
      passwordHash: 'new',
      credentialsChangedAt: NOW,
    });
    expect(await replacePasswordHash(owner(user), 'old', 'newer')).toBe(false);
  });
});

describe('TOTP and recovery codes', () => {
  const enrolment = { secret: 'SECRET', step: 100, recoveryCodeDigests: ['d1', 'd2'] };

  it('are enrolled once', async () => {
    const { user } = await invited();
    expect(await completeTotpEnrolment(owner(user), enrolment, NOW)).toBe(true);
    const stored = await getUser(organizationId, user.id, true);
    expect(stored).toMatchObject({ totpSecret: 'SECRET', totpLastStep: 100, updatedAt: NOW });
    expect(stored?.recoveryCodeDigests).toEqual(new Set(['d1', 'd2']));
    expect(await completeTotpEnrolment(owner(user), { ...enrolment, secret: 'OTHER' }, NOW)).toBe(false);
    expect((await getUser(organizationId, user.id, true))?.totpSecret).toBe('SECRET');
    expect(await completeTotpEnrolment({ organizationId, userId: randomUUID() }, enrolment, NOW)).toBe(false);
  });

  it('accept each time step once, only later ones, and only for the secret enrolled', async () => {
    const { user } = await invited();
    await completeTotpEnrolment(owner(user), enrolment, NOW);
    expect(await acceptTotpStep(owner(user), 'SECRET', 100)).toBe(false);
    expect(await acceptTotpStep(owner(user), 'SECRET', 99)).toBe(false);
    expect(await acceptTotpStep(owner(user), 'OTHER', 101)).toBe(false);
    expect(await acceptTotpStep(owner(user), 'SECRET', 101)).toBe(true);
    expect(await acceptTotpStep(owner(user), 'SECRET', 101)).toBe(false);
    expect((await getUser(organizationId, user.id, true))?.totpLastStep).toBe(101);
  });

  it('use each recovery code once', async () => {
    const { user } = await invited();
    await completeTotpEnrolment(owner(user), enrolment, NOW);
    expect(await useRecoveryCode(owner(user), ['d3'])).toBe(false);
    expect(await useRecoveryCode(owner(user), ['d1'])).toBe(true);
    expect(await useRecoveryCode(owner(user), ['d1'])).toBe(false);
    expect((await getUser(organizationId, user.id, true))?.recoveryCodeDigests).toEqual(new Set(['d2']));
    // A code is found by either of its digests (salted today, plain before), once.
    expect(await useRecoveryCode(owner(user), ['salted', 'd2'])).toBe(true);
    expect(await useRecoveryCode(owner(user), ['salted', 'd2'])).toBe(false);
  });
});

describe('a table that cannot be reached', () => {
  it('is an error, not a link used, a user gone or a hash changed', async () => {
    const { user, invitation } = await invited();
    const live = await livePasswordLink(invitation, NOW);
    process.env.IDP_TABLE_NAME = 'no-such-table';
    reloadConfig();
    const email = { organizationId, userId: user.id, to: user.email, name: user.name };
    await expect(issueResetLink(user, email, 3600, NOW)).rejects.toThrow();
    await expect(setPasswordWithLink(invitation, live?.link as never, 'hash', NOW)).rejects.toThrow();
    await expect(replacePasswordHash(owner(user), 'a', 'b')).rejects.toThrow();
  });
});
