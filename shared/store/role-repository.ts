import { PutCommand } from '@aws-sdk/lib-dynamodb';
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
