import * as z from 'zod';
import { MAX_ADDITIONAL_PROPERTY_NAMES } from '../domain/limits.js';
import { MAX_PASSWORD_LENGTH } from '../domain/password-policy.js';
import { identifier, pagingQuery, storableNumber } from './common.js';
import { grantedIds } from './grants.js';
import { freeText, NO_CONTROL_CHARACTERS, ONE_LINE, oneLine } from './text.js';

export const userStatus = z.enum(['ACTIVE', 'INACTIVE']);
export type UserStatus = z.infer<typeof userStatus>;
export const userType = z.enum(['STANDARD', 'RESTRICTED']);

const email = z.email().max(254);
/** A person's name; also what single sign-on brings (shared/auth/federation/federated-person.ts). */
export const displayName = oneLine(200);

export const user = z
  .strictObject({
    id: identifier,
    email,
    name: displayName,
    picture: z.url().max(2048).nullable(),
    policies: grantedIds,
    roles: grantedIds,
    managedRoles: grantedIds,
    canSendEmail: z.boolean(),
    isInitial: z.boolean(),
    userGroups: grantedIds.nullable(),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof user>;

export const newUserRequest = z
  .strictObject({ email, name: displayName, userType })
  .meta({ id: 'NewUserRequest' });

export const updateUserRequest = z
  .strictObject({ name: displayName, email: email.optional() })
  .meta({ id: 'UpdateUserRequest' });

const password = z.string().max(MAX_PASSWORD_LENGTH).meta({ format: 'password' });

export const changePasswordRequest = z
  .strictObject({
    currentPassword: password.min(1),
    newPassword: password,
    confirmPassword: password,
  })
  .meta({ id: 'ChangePasswordRequest' });

export const changeStatusRequest = z.strictObject({ userStatus }).meta({ id: 'ChangeStatusRequest' });

/** Names that would reach an object's prototype instead of a property of its own. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const propertyName = z
  .string()
  .min(1)
  .max(128)
  .regex(ONE_LINE, NO_CONTROL_CHARACTERS)
  .refine((name) => !PROTOTYPE_NAMES.has(name), 'Not allowed as a property name');
export const additionalPropertyValue = z.union([freeText(4096), storableNumber, z.strictObject({})]);

export const setAdditionalPropertiesRequest = z
  .strictObject({
    additionalProperties: z
      .record(propertyName, additionalPropertyValue)
      .refine((properties) => Object.keys(properties).length <= 50, 'At most 50 properties at a time')
      .meta({ maxProperties: 50 }),
  })
  .meta({ id: 'SetAdditionalPropertiesRequest' });

export const removeAdditionalPropertiesRequest = z
  .strictObject({ propertiesToRemove: z.array(propertyName).max(50) })
  .meta({ id: 'RemoveAdditionalPropertiesRequest' });

export const additionalUserProperties = z
  .strictObject({ additionalProperties: z.array(propertyName).max(MAX_ADDITIONAL_PROPERTY_NAMES) })
  .meta({ id: 'AdditionalUserProperties' });

export const listUsersQuery = pagingQuery.extend({
  fetchInactive: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .meta({ description: 'true returns only INACTIVE users; false (default) only ACTIVE ones' }),
});

export const userPath = z.strictObject({ id: identifier });
/** `v` changes with every upload, so caches never serve an old picture under the same URL. */
export const pictureQuery = z.strictObject({ v: z.string().max(20).regex(/^\d+$/).optional() });
export const userTypePath = z.strictObject({
  id: identifier,
  type: z
    .enum(['STANDARD', 'RESTRICTED', 'standard', 'restricted'])
    .transform((value) => (value.toUpperCase() === 'STANDARD' ? 'STANDARD' : 'RESTRICTED')),
});
export const userRolePath = z.strictObject({
  id: identifier,
  roleName: oneLine(200).meta({ description: 'A role name (case-insensitive) or id' }),
});
export const userPolicyPath = z.strictObject({ id: identifier, policyId: identifier });
export const userManagedRolePath = z.strictObject({ id: identifier, roleId: identifier });
export const userGroupPath = z.strictObject({ id: identifier, userGroupId: identifier });
