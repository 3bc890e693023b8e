/**
 * An organization's audit settings. Records are kept `retentionDays` (TTL) and spread over
 * `shards` partitions per index: each takes about 1,000 writes a second, and half of that is
 * planned for (as for rate counters), so an organization writing R records a second needs
 * ceil(R / 500) shards; a query reads every shard (docs/audit.md).
 */
export interface AuditSettings {
  retentionDays: number;
  shards: number;
}

export const DEFAULT_AUDIT_SETTINGS: AuditSettings = { retentionDays: 90, shards: 1 };
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;
export const MAX_AUDIT_SHARDS = 16;
export const RECORDS_PER_SHARD_SECOND = 500;

/** The shards an organization writing `recordsPerSecond` at its peak needs. */
export const shardsFor = (recordsPerSecond: number): number =>
  Math.min(MAX_AUDIT_SHARDS, Math.max(1, Math.ceil(recordsPerSecond / RECORDS_PER_SHARD_SECOND)));

/** When a record written at `time` expires, in epoch seconds (the table's TTL attribute). */
export const expiryOf = (time: number, retentionDays: number): number =>
  Math.floor(time / 1000) + retentionDays * 86_400;
