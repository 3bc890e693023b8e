import * as z from 'zod';
import { epochMillis, identifier, MAX_PAGE_SIZE } from './common.js';
import { grantedIds } from './grants.js';
import { freeText, oneLine } from './text.js';

export const userGroupStatus = z.enum(['ACTIVE', 'INACTIVE']);

const groupName = oneLine(200);
const groupNumber = oneLine(64);
const description = freeText(2000);

export const userGroup = z
  .strictObject({
    id: identifier,
    name: groupName,
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: identifier,
    updatedBy: identifier,
    number: groupNumber.optional(),
    description: description.optional(),
    roles: grantedIds.optional(),
    managedRoles: grantedIds.optional(),
    policies: grantedIds.optional(),
    status: userGroupStatus.optional(),
  })
  .meta({ id: 'UserGroup' });
export type UserGroup = z.infer<typeof userGroup>;

export const createUserGroupRequest = z
  .strictObject({
    name: groupName,
    number: groupNumber.optional(),
    description: description.optional(),
    status: userGroupStatus.optional(),
  })
  .meta({ id: 'CreateUserGroupRequestBody' });

export const updateUserGroupRequest = z
  .strictObject({
    number: groupNumber.optional(),
    name: groupName.optional(),
    description: description.optional(),
    status: userGroupStatus.optional(),
  })
  .meta({ id: 'UpdateUserGroupRequestBody' });

export const userGroupEnvelope = z.strictObject({ userGroup }).meta({ id: 'UserGroupResponse' });
export const userGroupList = z
  .strictObject({ userGroups: z.array(userGroup).max(MAX_PAGE_SIZE) })
  .meta({ id: 'UserGroupList' });
export const userGroupCount = z.strictObject({ count: z.number().int() }).meta({ id: 'UserGroupCount' });

export const assignRoleRequest = z.strictObject({ roleId: identifier }).meta({ id: 'UserGroupRoleRequest' });
export const assignPolicyRequest = z
  .strictObject({ policyId: identifier })
  .meta({ id: 'UserGroupPolicyRequest' });
export const assignManagedRoleRequest = z
  .strictObject({ managedRoleId: identifier })
  .meta({ id: 'UserGroupManagedRoleRequest' });
