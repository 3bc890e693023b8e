import { MAX_ADDITIONAL_PROPERTY_NAMES } from '../domain/limits.js';
import { decodeSearchCursor, searchCriterionOf, USER_SEARCH_BY } from '../domain/user-search.js';
import { PASSKEY_ID } from '../passkeys/rules.js';
import * as z from '../zod.js';
import {
  emailAddress,
  epochMillis,
  identifier,
  MAX_PAGE_SIZE,
  pagingQuery,
  storableNumber,
} from './common.js';
import { grantedIds } from './grants.js';
import { displayName, freeText, NO_CONTROL_CHARACTERS, ONE_LINE, oneLine } from './text.js';

export const userStatus = z.enum(['ACTIVE', 'INACTIVE']);
export type UserStatus = z.infer<typeof userStatus>;
export const userType = z.enum(['STANDARD', 'RESTRICTED']);

const email = emailAddress;

export const user = z.withMeta(
  z.strictObject({
    id: identifier,
    email,
    name: displayName,
    picture: z.nullable(z.url().check(z.maxLength(2048))),
    policies: grantedIds,
    roles: grantedIds,
    managedRoles: grantedIds,
    canSendEmail: z.boolean(),
    isInitial: z.boolean(),
    userGroups: z.nullable(grantedIds),
  }),
  { id: 'User' },
);
export type User = z.infer<typeof user>;

export const newUserRequest = z.withMeta(z.strictObject({ email, name: displayName, userType }), {
  id: 'NewUserRequest',
});

export const updateUserRequest = z.withMeta(z.strictObject({ name: displayName, email: z.optional(email) }), {
  id: 'UpdateUserRequest',
});

export const changeStatusRequest = z.withMeta(z.strictObject({ userStatus }), { id: 'ChangeStatusRequest' });

/** Names that would reach an object's prototype instead of a property of its own. */
const PROTOTYPE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const propertyName = z.string().check(
  z.minLength(1),
  z.maxLength(128),
  z.regex(ONE_LINE, NO_CONTROL_CHARACTERS),
  z.refine((name) => !PROTOTYPE_NAMES.has(name), 'Not allowed as a property name'),
);
export const additionalPropertyValue = z.union([freeText(4096), storableNumber, z.strictObject({})]);

export const setAdditionalPropertiesRequest = z.withMeta(
  z.strictObject({
    additionalProperties: z.withMeta(
      z
        .record(propertyName, additionalPropertyValue)
        .check(
          z.refine((properties) => Object.keys(properties).length <= 50, 'At most 50 properties at a time'),
        ),
      { maxProperties: 50 },
    ),
  }),
  { id: 'SetAdditionalPropertiesRequest' },
);

export const removeAdditionalPropertiesRequest = z.withMeta(
  z.strictObject({ propertiesToRemove: z.array(propertyName).check(z.maxLength(50)) }),
  { id: 'RemoveAdditionalPropertiesRequest' },
);

export const additionalUserProperties = z.withMeta(
  z.strictObject({
    additionalProperties: z.array(propertyName).check(z.maxLength(MAX_ADDITIONAL_PROPERTY_NAMES)),
  }),
  { id: 'AdditionalUserProperties' },
);

export const listUsersQuery = z.extend(pagingQuery, {
  fetchInactive: z.withMeta(
    z.pipe(
      z._default(z.enum(['true', 'false']), 'false'),
      z.transform((value: 'true' | 'false') => value === 'true'),
    ),
    { description: 'true returns only INACTIVE users; false (default) only ACTIVE ones' },
  ),
});

export const DEFAULT_SEARCH_PAGE = 100;

const searchFields = z.strictObject({
  email: z.optional(z.withMeta(email, { description: 'Exactly this email, compared case-insensitively' })),
  emailPrefix: z.optional(
    z.withMeta(oneLine(254), { description: 'Emails starting so, compared case-insensitively' }),
  ),
  namePrefix: z.optional(
    z.withMeta(oneLine(200), { description: 'Names starting so, compared case-insensitively' }),
  ),
  userGroupId: z.optional(z.withMeta(identifier, { description: 'The members of this user group' })),
  status: z.optional(z.withMeta(userStatus, { description: 'Only users of this status' })),
  userType: z.optional(z.withMeta(userType, { description: 'Only users of this type' })),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_PAGE_SIZE)), DEFAULT_SEARCH_PAGE),
  cursor: z.optional(
    z.withMeta(z.string().check(z.maxLength(2000), z.regex(/^[A-Za-z0-9_-]+$/)), {
      description: 'From the Link rel="next" of the page before',
    }),
  ),
});

export const searchUsersQuery = searchFields.check(
  z.superRefine((query: z.output<typeof searchFields>, context) => {
    const given = USER_SEARCH_BY.filter((by) => query[by] !== undefined);
    if (given.length !== 1) {
      context.addIssue({
        code: 'custom',
        path: given.length === 0 ? [] : [given[1] as string],
        message: `Exactly one of ${USER_SEARCH_BY.join(', ')}`,
      });
      return;
    }
    const criterion = searchCriterionOf(query);
    if (query.cursor !== undefined && criterion && !decodeSearchCursor(query.cursor, criterion)) {
      context.addIssue({
        code: 'custom',
        path: ['cursor'],
        message: 'Not the cursor of a Link rel="next" of this search',
      });
    }
  }),
);

/**
 * A passkey's id: hex, so that it is an identifier wherever ids go (audit record targets, paths),
 * which a base64url digest starting with `-` or `_` is not.
 */

/** A passkey as the management API shows it (docs/passkeys.md): never its public key. */
export const passkey = z.withMeta(
  z.strictObject({
    id: z.withMeta(z.string().check(z.length(64), z.regex(PASSKEY_ID)), {
      description: "The passkey's id: SHA-256 of its WebAuthn credential id, hex",
    }),
    name: oneLine(100),
    createdAt: epochMillis,
    lastUsedAt: z.nullable(epochMillis),
    transports: z.array(z.string().check(z.maxLength(32), z.regex(/^[a-z-]+$/))).check(z.maxLength(10)),
    backupEligible: z.withMeta(z.boolean(), {
      description: 'A synced passkey (amr swk), or one bound to its device (hwk)',
    }),
    backedUp: z.boolean(),
    aaguid: z.string().check(z.length(36), z.regex(/^[0-9a-f-]{36}$/)),
    flagged: z.withMeta(z.boolean(), {
      description: 'A sign-in with it was refused because its signature counter went backwards',
    }),
  }),
  { id: 'Passkey' },
);
export const userPasskeyPath = z.strictObject({
  id: identifier,
  passkeyId: z.string().check(z.length(64), z.regex(PASSKEY_ID, 'A passkey id')),
});

export const userPath = z.strictObject({ id: identifier });
export const userTypePath = z.strictObject({
  id: identifier,
  type: z.pipe(
    z.enum(['STANDARD', 'RESTRICTED', 'standard', 'restricted']),
    z.transform((value: 'STANDARD' | 'RESTRICTED' | 'standard' | 'restricted') =>
      value.toUpperCase() === 'STANDARD' ? 'STANDARD' : 'RESTRICTED',
    ),
  ),
});
export const userRolePath = z.strictObject({
  id: identifier,
  roleName: z.withMeta(oneLine(200), { description: 'A role name (case-insensitive) or id' }),
});
export const userPolicyPath = z.strictObject({ id: identifier, policyId: identifier });
export const userManagedRolePath = z.strictObject({ id: identifier, roleId: identifier });
export const userGroupPath = z.strictObject({ id: identifier, userGroupId: identifier });
