import * as z from 'zod';
import { epochMillis, identifier } from './common.js';

export const userGroupStatus = z.enum(['ACTIVE', 'INACTIVE']);

export const userGroup = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    createdAt: epochMillis,
    updatedAt: epochMillis,
    createdBy: z.string(),
    updatedBy: z.string(),
    number: z.string().optional(),
    description: z.string().optional(),
    roles: z.array(z.string()).optional(),
    managedRoles: z.array(z.string()).optional(),
    policies: z.array(z.string()).optional(),
    status: userGroupStatus.optional(),
  })
  .meta({ id: 'UserGroup' });
export type UserGroup = z.infer<typeof userGroup>;

const groupName = z.string().trim().min(1).max(200);
const groupNumber = z.string().trim().min(1).max(64);
const description = z.string().max(2000);

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
export const userGroupList = z.strictObject({ userGroups: z.array(userGroup) }).meta({ id: 'UserGroupList' });
export const userGroupCount = z.strictObject({ count: z.number().int() }).meta({ id: 'UserGroupCount' });

export const assignRoleRequest = z.strictObject({ roleId: identifier }).meta({ id: 'UserGroupRoleRequest' });
export const assignPolicyRequest = z
  .strictObject({ policyId: identifier })
  .meta({ id: 'UserGroupPolicyRequest' });
export const assignManagedRoleRequest = z
  .strictObject({ managedRoleId: identifier })
  .meta({ id: 'UserGroupManagedRoleRequest' });
