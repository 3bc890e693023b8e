import { changePasswordRequest } from '../../schemas/passwords.js';
import { noContent, routeGroup } from '../route-definition.js';

/**
 * A user's own password change (spec 4.1): a group, and so a function, of its own, the only
 * management one that carries the password policy's list of common passwords.
 */
export const userPasswordsRoutes = routeGroup('user-passwords')({
  changePassword: {
    route: 'PUT /idp/users/{id}/changePassword',
    audit: ['password.changed'],
    summary: 'Change the own password',
    description:
      'The current password must be right; the new one is 12 to 1,024 characters, not the email and not a common password. A user without a password yet gets 400. A password set, or a deactivation, while the current one is checked stands: 409, nothing changed (sign in again).',
    subject: 'self',
    // A repeat after a lost answer is refused (its token predates the new password): sign in again.
    bodyIsSecret: true,
    request: { body: changePasswordRequest },
    response: noContent('Changed'),
  },
});
