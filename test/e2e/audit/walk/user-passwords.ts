import { hashPassword } from '../../../../shared/auth/passwords.js';
import { updateUserAttributes } from '../../../../shared/store/user-repository.js';
import { withUser } from './users.js';
import type { WalkCalls } from './walk-call.js';
import { walkCall } from './walk-call.js';

const CURRENT = 'walk current password 1';

/** A user's own password change (spec 4.1): the user calls, with a password set in the store. */
export const USER_PASSWORDS_CALLS: WalkCalls = {
  changePassword: walkCall({
    prepare: async (service, org) => {
      const { userId } = await withUser(service, org);
      await updateUserAttributes(org.orgId, userId, { passwordHash: await hashPassword(CURRENT) });
      return { userId, token: await service.userToken(userId, org.orgId) };
    },
    as: ({ userId, token }) => ({ token, actor: { type: 'user', id: userId } }),
    path: ({ userId }) => `/idp/users/${userId}/changePassword`,
    body: () => ({
      currentPassword: CURRENT,
      newPassword: 'walk new password 2',
      confirmPassword: 'walk new password 2',
    }),
    target: ({ userId }) => userId,
  }),
};
