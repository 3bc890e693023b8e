import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditRecord } from '../../shared/audit/record.js';
import { DEFAULT_AUDIT_SETTINGS } from '../../shared/audit/settings.js';
import { type AuditQuery, auditItems, queryAuditRecords } from '../../shared/store/audit-records.js';
import { db, tableName } from '../../shared/store/dynamo.js';
import { keys } from '../../shared/store/keys.js';
import { getItem } from './records.js';

/** An organization's audit records matching `query`, newest first, as GET /idp/auditEvents reads them. */
export const auditRecordsOf = async (orgId: string, query: AuditQuery = {}): Promise<AuditRecord[]> =>
  (await queryAuditRecords(orgId, query, { limit: 1000 })).records;

/**
 * The stored items of `records` (each record and its copies for further targets) as one text:
 * what a test searches for a value that must never reach the audit log.
 */
export const storedAuditText = async (orgId: string, records: readonly AuditRecord[]): Promise<string> =>
  JSON.stringify(
    await Promise.all(
      records.flatMap((record) => [
        getItem(keys.auditRecord(orgId, record.id)),
        ...record.targets
          .slice(1)
          .map((_, index) => getItem(keys.auditTargetCopy(orgId, record.id, index + 1))),
      ]),
    ),
  );

/**
 * Overwrites the stored text of `record` in every copy (the record and its index entries), as
 * someone editing the table by hand would; `shards` as the organization's audit settings say.
 */
export const overwriteStoredRecord = async (record: AuditRecord, text: string, shards = 1): Promise<void> => {
  for (const item of auditItems(record, { ...DEFAULT_AUDIT_SETTINGS, shards }))
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET #record = :record',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':record': text },
      }),
    );
};
