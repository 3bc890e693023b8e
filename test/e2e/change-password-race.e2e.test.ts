import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../shared/auth/passwords.js';
import { issueResetLink, livePasswordLink, setPasswordWithLink } from '../../shared/store/credentials.js';
import {
  getUser,
  setUserStatus,
  type UserRecord,
  updateUserAttributes,
} from '../../shared/store/user-repository.js';
import { auditRecordsOf } from '../support/audit-items.js';
import { beforeTransaction, type SentItems } from '../support/interleave.js';
import type { ApiError } from '../support/service.js';
import { useService } from '../support/service.js';
import { emailsTo } from '../support/sign-in-flow.js';

/**
 * `changePassword` checks the current password (an scrypt derivation, about half a second
 * deployed), then writes the new hash. A reset committed meanwhile, which a person does precisely
 * to take the account back from someone who knows the old password and holds a token, must stand:
 * the write is made only over the password checked (docs/sign-in.md, changePassword).
 */

const service = useService();

const current = 'current password 1';
const holders = 'token holder password 2';
const resets = 'reset new password 3';

/** A person with a password, set `credentialsChangedAt` ago when given, and their access token. */
const withPassword = async (credentialsChangedAt?: number) => {
  const id = await service.createUser();
  await updateUserAttributes(service.organizationId, id, {
    passwordHash: await hashPassword(current),
    ...(credentialsChangedAt === undefined ? {} : { credentialsChangedAt }),
  });
  return { id, userToken: await service.userToken(id) };
};

const change = (id: string, as: string) =>
  service.call<ApiError>('PUT', `/idp/users/${id}/changePassword`, {
    token: as,
    body: { currentPassword: current, newPassword: holders, confirmPassword: holders },
  });

/** The person resets their password through an emailed link (what the reset page does). */
const resetThroughLink = async (id: string) => {
  const user = (await getUser(service.organizationId, id, true)) as UserRecord;
  const issued = await issueResetLink(
    user,
    { organizationId: user.organizationId, userId: user.id, to: user.email, name: user.name },
    3600,
  );
  const live = await livePasswordLink(issued?.token ?? '');
  if (!issued || !live) throw new Error('no live reset link');
  expect(await setPasswordWithLink(issued.token, live.link, await hashPassword(resets))).toBe(true);
};

/** The change's own write: an update of the user's password hash. */
const writesPasswordHash = (items: SentItems) =>
  items.some((item) => {
    const sent = item.Update as {
      UpdateExpression?: string;
      ExpressionAttributeNames?: Record<string, string>;
    };
    return (
      sent !== undefined &&
      (Object.values(sent.ExpressionAttributeNames ?? {}).includes('passwordHash') ||
        /\bpasswordHash\b/.test(sent.UpdateExpression ?? ''))
    );
  });

/** Runs the change with `meanwhile` committed just before its write. */
const changeWith = async (id: string, userToken: string, meanwhile: () => Promise<unknown>) => {
  const hook = beforeTransaction(writesPasswordHash, meanwhile);
  try {
    return await change(id, userToken);
  } finally {
    hook.stop();
    expect(hook.ran).toBe(true);
  }
};

const storedHash = async (id: string) =>
  (await getUser(service.organizationId, id, true))?.passwordHash as string;

const changeRecords = async (id: string) =>
  (await auditRecordsOf(service.organizationId, { targetId: id }))
    .filter((record) => record.action === 'password.changed')
    .map(({ outcome, reason }) => ({ outcome, reason }));

describe('changePassword and a change committed while it checks the current password', () => {
  it('positive control: nothing meanwhile, the change is written and recorded', async () => {
    const { id, userToken } = await withPassword();
    const response = await changeWith(id, userToken, async () => undefined);
    expect(response.status).toBe(204);
    expect(await verifyPassword(holders, await storedHash(id))).toBe(true);
    expect(await changeRecords(id)).toEqual([{ outcome: 'success' }]);
    expect(await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL')).toHaveLength(1);
  });

  it('a reset committed meanwhile stands: 409, nothing written, the refusal recorded', async () => {
    const { id, userToken } = await withPassword();
    const response = await changeWith(id, userToken, () => resetThroughLink(id));
    expect(response.status).toBe(409);
    expect(response.body.message).toBe(
      'The password was changed, or the sign-ins ended, meanwhile; sign in again',
    );
    expect(await verifyPassword(resets, await storedHash(id))).toBe(true);
    expect(await changeRecords(id)).toEqual([
      {
        outcome: 'failure',
        reason: '409 The password was changed, or the sign-ins ended, meanwhile; sign in again',
      },
    ]);
    expect(await emailsTo(service, id, 'SECURITY_NOTICE_EMAIL')).toHaveLength(0);
  });

  it('a deactivation meanwhile (same hash, credentials changed) refuses the change too', async () => {
    // Positive control above; here only credentialsChangedAt moves under the change.
    const { id, userToken } = await withPassword(Date.now() - 1000);
    const response = await changeWith(id, userToken, () =>
      setUserStatus(service.organizationId, id, 'INACTIVE'),
    );
    expect(response.status).toBe(409);
    expect(await verifyPassword(current, await storedHash(id))).toBe(true);
  });
});
