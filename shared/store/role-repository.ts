import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from './batch.js';
import { db, tableName } from './dynamo.js';
import { keys } from './keys.js';

export interface RoleRecord {
  id: string;
  organizationId: string;
  name: string;
  permissions: string[];
  /** pluginId -> granted action names. */
  pluginPermissions: Record<string, string[]>;
  archived: boolean;
  createdAt: number;
  updatedAt: number;
}

export const putRole = async (role: RoleRecord): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.role(role.organizationId, role.id), ...role },
    }),
  );
};

/** The organization's roles with these ids (one BatchGet per 100); unknown ids are skipped. */
export const getRoles = async (orgId: string, roleIds: readonly string[]): Promise<RoleRecord[]> =>
  roleIds.length === 0
    ? []
    : ((await batchGet([...new Set(roleIds)].map((id) => keys.role(orgId, id)))) as unknown as RoleRecord[]);
