import * as z from '../zod.js';
import { epochMillis, identifier, MAX_PAGE_SIZE } from './common.js';
import { grantedIds } from './grants.js';
import { freeText, oneLine } from './text.js';

export const userGroupStatus = z.enum(['ACTIVE', 'INACTIVE']);

const groupName = oneLine(200);
const groupNumber = oneLine(64);
const description = freeText(2000);

export const userGroup = z.withMeta(
  z.strictObject({
    id: identifier,
    name: groupName,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: identifier,
    updatedBy: identifier,
    number: z.optional(groupNumber),
    description: z.optional(description),
    roles: z.optional(grantedIds),
    managedRoles: z.optional(grantedIds),
    policies: z.optional(grantedIds),
    status: z.optional(userGroupStatus),
  }),
  { id: 'UserGroup' },
);
export type UserGroup = z.infer<typeof userGroup>;

export const createUserGroupRequest = z.withMeta(
  z.strictObject({
    name: groupName,
    number: z.optional(groupNumber),
    description: z.optional(description),
    status: z.optional(userGroupStatus),
  }),
  { id: 'CreateUserGroupRequestBody' },
);

export const updateUserGroupRequest = z.withMeta(
  z.strictObject({
    number: z.optional(groupNumber),
    name: z.optional(groupName),
    description: z.optional(description),
    status: z.optional(userGroupStatus),
  }),
  { id: 'UpdateUserGroupRequestBody' },
);

export const userGroupEnvelope = z.withMeta(z.strictObject({ userGroup }), { id: 'UserGroupResponse' });
export const userGroupList = z.withMeta(
  z.strictObject({ userGroups: z.array(userGroup).check(z.maxLength(MAX_PAGE_SIZE)) }),
  { id: 'UserGroupList' },
);
export const userGroupCount = z.withMeta(z.strictObject({ count: z.number().check(z.int()) }), {
  id: 'UserGroupCount',
});

export const assignRoleRequest = z.withMeta(z.strictObject({ roleId: identifier }), {
  id: 'UserGroupRoleRequest',
});
export const assignPolicyRequest = z.withMeta(z.strictObject({ policyId: identifier }), {
  id: 'UserGroupPolicyRequest',
});
export const assignManagedRoleRequest = z.withMeta(z.strictObject({ managedRoleId: identifier }), {
  id: 'UserGroupManagedRoleRequest',
});
