import type { AuditRecord } from '../../shared/audit/record.js';
import { type AuditQuery, auditSettings, queryAuditRecords } from '../../shared/store/audit-records.js';
import { AUDIT_INDEXES, keys } from '../../shared/store/keys.js';
import { queryAll } from '../../shared/store/query.js';

/** The audit records of an organization that match `query`, oldest first (read from the store). */
export const auditTrail = async (organizationId: string, query: AuditQuery = {}): Promise<AuditRecord[]> =>
  (await queryAuditRecords(organizationId, query, { limit: 1000 })).records.reverse();

/** The sign-in records (`signin.*`) of an organization by one person, oldest first. */
export const signInTrail = (organizationId: string, actorId: string, since?: number) =>
  auditTrail(organizationId, { action: 'signin.', actorId, ...(since === undefined ? {} : { since }) });

/**
 * Every stored audit item of an organization, whole (the record's text and every attribute beside
 * it), read from its timeline: what a search for leaked secrets reads.
 */
export const storedAuditItems = async (organizationId: string): Promise<Record<string, unknown>[]> => {
  const { index, partitionKey } = AUDIT_INDEXES.timeline;
  const { shards } = await auditSettings(organizationId);
  const perShard = await Promise.all(
    Array.from({ length: shards }, (_, shard) =>
      queryAll({
        IndexName: index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': partitionKey },
        ExpressionAttributeValues: { ':pk': keys.auditIndexKey(organizationId, 'timeline', '', shard) },
      }),
    ),
  );
  return perShard.flat();
};
