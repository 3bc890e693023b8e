import { userPasswordsRoutes } from '../shared/api/routes/user-passwords.js';
import { changesBetween } from '../shared/audit/changes.js';
import { hashPassword, verifyPassword } from '../shared/auth/passwords.js';
import { personTarget, recordSignInEvent } from '../shared/auth/sign-in-audit.js';
import { Conflict } from '../shared/domain/errors.js';
import { samePassword } from '../shared/domain/password-normalization.js';
import { passwordProblem } from '../shared/domain/password-policy.js';
import { lockoutMillis } from '../shared/domain/sign-in-lockout.js';
import { noticeRecipient, sendSecurityNotice } from '../shared/email/account-emails.js';
import { badRequest } from '../shared/http/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { replaceCheckedPassword } from '../shared/store/credentials.js';
import {
  endCredentialCheck,
  recordSignInFailure,
  reserveCredentialCheck,
} from '../shared/store/sign-in-state.js';
import { requireUser } from '../shared/store/user-repository.js';

/** The own password change: the password policy of DECISIONS.md, the current password checked. */
export const handler = groupHandler(
  userPasswordsRoutes,
  {
    changePassword: async ({ path, body }, { principal }) => {
      if (!samePassword(body.newPassword, body.confirmPassword)) {
        throw badRequest('The new password and its confirmation differ', [
          { message: 'Must equal newPassword', field: 'body.confirmPassword' },
        ]);
      }
      const org = principal.organizationId;
      const user = await requireUser(org, path.id, true);
      const problem = passwordProblem(body.newPassword, user.email);
      if (problem) throw badRequest(problem, [{ message: problem, field: 'body.newPassword' }]);
      // The current password is checked under the sign-in lockout: a stolen access token must not
      // become a way to guess it.
      const check = await reserveCredentialCheck(org, user.email);
      // The hash the current password was checked against: the change is written over it alone.
      const checked =
        check.outcome === 'reserved' &&
        user.passwordHash !== undefined &&
        (await verifyPassword(body.currentPassword, user.passwordHash))
          ? user.passwordHash
          : undefined;
      if (checked === undefined) {
        const counted = await recordSignInFailure(
          org,
          user.email,
          lockoutMillis,
          Date.now(),
          check.outcome === 'reserved' ? check : undefined,
        );
        // A wrong current password is a failed sign-in, recorded as the sign-in page records one
        // (a 400 is otherwise no record): guessing through a stolen token shows, and so does the lock.
        await recordSignInEvent({
          organizationId: org,
          action: counted.locked ? 'signin.locked' : 'signin.failed',
          outcome: 'failure',
          reason:
            check.outcome === 'refused'
              ? check.locked
                ? 'locked'
                : 'another attempt under way'
              : 'wrong current password',
          targets: [personTarget(user)],
        });
        throw badRequest('The current password is wrong', [
          { message: 'Does not match the current password', field: 'body.currentPassword' },
        ]);
      }
      await endCredentialCheck(org, user.email);
      const passwordHash = await hashPassword(body.newPassword);
      const now = Date.now();
      // As a reset does: the person's sessions and refresh tokens end, and no link sent earlier
      // can set the password any more. Only over the password just checked: a reset committed
      // during the check stands (its refusal is recorded as any 409 is, by the admission).
      const replaced = await replaceCheckedPassword(
        { organizationId: org, userId: user.id },
        { passwordHash: checked, credentialsChangedAt: user.credentialsChangedAt },
        passwordHash,
        now,
        {
          organizationId: org,
          action: 'password.changed',
          targets: [{ type: 'user', id: user.id, name: user.email }],
          // A secret-named field: the record says only "changed".
          changes: changesBetween({ passwordHash: checked }, { passwordHash }),
        },
      );
      if (!replaced)
        throw new Conflict(
          'User',
          'The password was changed, or the sign-ins ended, meanwhile; sign in again',
        );
      await sendSecurityNotice(noticeRecipient(user), 'password');
      return {};
    },
  },
  { admission, registeredOrigin: isRegisteredOrigin },
);
