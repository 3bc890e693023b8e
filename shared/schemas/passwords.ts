import { MAX_PASSWORD_LENGTH } from '../domain/limits.js';
import * as z from '../zod.js';

/**
 * A person's own password change (spec 4.1), apart from the other user schemas: the function
 * that serves it builds only these at start.
 */
const password = z.withMeta(z.string().check(z.maxLength(MAX_PASSWORD_LENGTH)), { format: 'password' });

export const changePasswordRequest = z.withMeta(
  z.strictObject({
    currentPassword: password.check(z.minLength(1)),
    newPassword: password,
    confirmPassword: password,
  }),
  { id: 'ChangePasswordRequest' },
);
