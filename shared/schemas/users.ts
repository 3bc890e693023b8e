import * as z from 'zod';
import { identifier, pagingQuery, storableNumber } from './common.js';

export const userStatus = z.enum(['ACTIVE', 'INACTIVE']);
export type UserStatus = z.infer<typeof userStatus>;
export const userType = z.enum(['STANDARD', 'RESTRICTED']);

export const user = z
  .strictObject({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    picture: z.string().nullable(),
    policies: z.array(z.string()),
    roles: z.array(z.string()),
    managedRoles: z.array(z.string()),
    canSendEmail: z.boolean(),
    isInitial: z.boolean(),
    userGroups: z.array(z.string()).nullable(),
  })
  .meta({ id: 'User' });
export type User = z.infer<typeof user>;

const email = z.email().max(254);
const displayName = z.string().trim().min(1).max(200);

export const newUserRequest = z
  .strictObject({ email, name: displayName, userType })
  .meta({ id: 'NewUserRequest' });

export const updateUserRequest = z
  .strictObject({ name: displayName, email: email.optional() })
  .meta({ id: 'UpdateUserRequest' });

export const changePasswordRequest = z
  .strictObject({
    currentPassword: z.string().min(1).max(1024),
    newPassword: z.string().max(1024),
    confirmPassword: z.string().max(1024),
  })
  .meta({ id: 'ChangePasswordRequest' });

export const changeStatusRequest = z.strictObject({ userStatus }).meta({ id: 'ChangeStatusRequest' });

/** Names that would reach an object's prototype instead of a property of its own. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const propertyName = z
  .string()
  .min(1)
  .max(128)
  .refine((name) => !PROTOTYPE_NAMES.has(name), 'Not allowed as a property name');
export const additionalPropertyValue = z.union([z.string().max(4096), storableNumber, z.strictObject({})]);

export const setAdditionalPropertiesRequest = z
  .strictObject({
    additionalProperties: z
      .record(propertyName, additionalPropertyValue)
      .refine((properties) => Object.keys(properties).length <= 50, 'At most 50 properties at a time'),
  })
  .meta({ id: 'SetAdditionalPropertiesRequest' });

export const removeAdditionalPropertiesRequest = z
  .strictObject({ propertiesToRemove: z.array(propertyName).max(50) })
  .meta({ id: 'RemoveAdditionalPropertiesRequest' });

export const additionalUserProperties = z
  .strictObject({ additionalProperties: z.array(z.string()) })
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
export const pictureQuery = z.strictObject({ v: z.string().max(20).optional() });
export const userTypePath = z.strictObject({
  id: identifier,
  type: z
    .enum(['STANDARD', 'RESTRICTED', 'standard', 'restricted'])
    .transform((value) => (value.toUpperCase() === 'STANDARD' ? 'STANDARD' : 'RESTRICTED')),
});
export const userRolePath = z.strictObject({ id: identifier, roleName: z.string().min(1).max(200) });
export const userPolicyPath = z.strictObject({ id: identifier, policyId: identifier });
export const userManagedRolePath = z.strictObject({ id: identifier, roleId: identifier });
export const userGroupPath = z.strictObject({ id: identifier, userGroupId: identifier });
