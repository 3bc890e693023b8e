import { userPasswordsRoutes } from '../shared/api/routes/user-passwords.js';
import { changesBetween } from '../shared/audit/changes.js';
import { hashPassword, verifyPassword } from '../shared/auth/passwords.js';
import { passwordProblem } from '../shared/domain/password-policy.js';
import { badRequest } from '../shared/http/errors.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { admission } from '../shared/http/middleware/admission.js';
import { idempotency } from '../shared/http/middleware/idempotency.js';
import { isRegisteredOrigin } from '../shared/store/browser-origins.js';
import { requireUser, updateUserAttributes } from '../shared/store/user-repository.js';

/** The own password change: the password policy of DECISIONS.md, the current password checked. */
export const handler = groupHandler(
  userPasswordsRoutes,
  {
    changePassword: async ({ path, body }, { principal }) => {
      if (body.newPassword !== body.confirmPassword) {
        throw badRequest('The new password and its confirmation differ', [
          { message: 'Must equal newPassword', field: 'body.confirmPassword' },
        ]);
      }
      const user = await requireUser(principal.organizationId, path.id, true);
      const problem = passwordProblem(body.newPassword, user.email);
      if (problem) throw badRequest(problem, [{ message: problem, field: 'body.newPassword' }]);
      if (!user.passwordHash || !(await verifyPassword(body.currentPassword, user.passwordHash))) {
        throw badRequest('The current password is wrong', [
          { message: 'Does not match the current password', field: 'body.currentPassword' },
        ]);
      }
      const passwordHash = await hashPassword(body.newPassword);
      await updateUserAttributes(principal.organizationId, path.id, { passwordHash }, [], Date.now(), {
        action: 'password.changed',
        targets: [{ type: 'user', id: user.id, name: user.email }],
        // A secret-named field: the record says only "changed".
        changes: changesBetween({ passwordHash: user.passwordHash }, { passwordHash }),
      });
      return {};
    },
  },
  { admission, idempotency, registeredOrigin: isRegisteredOrigin },
);
