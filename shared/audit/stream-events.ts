import type { AuditRecord } from './record.js';

/** The `source` of every event the service puts on its bus. */
export const EVENT_SOURCE = 'idp';
/** EventBridge takes at most 10 entries per PutEvents call. */
export const MAX_ENTRIES_PER_PUT = 10;

/** A new item the table's stream reports, unmarshalled, with its place in the stream. */
export interface StreamedItem {
  sequenceNumber: string;
  eventName: string;
  item: Record<string, unknown> | undefined;
}

/**
 * The audit records among a batch of stream records, in stream order: newly inserted record
 * items only (not their target copies, not changes to other items). The stream's filter already
 * asks for these; checking again keeps a widened filter from forwarding anything else.
 */
export const auditRecordsIn = (
  items: readonly StreamedItem[],
): { sequenceNumber: string; record: AuditRecord }[] =>
  items.flatMap(({ sequenceNumber, eventName, item }) =>
    eventName === 'INSERT' &&
    typeof item?.pk === 'string' &&
    item.pk.startsWith('AUDIT#') &&
    item.sk === 'RECORD' &&
    typeof item.record === 'string'
      ? [{ sequenceNumber, record: JSON.parse(item.record) as AuditRecord }]
      : [],
  );

/** The EventBridge entry of a record: `source` idp, `detail-type` its action, `detail` the record. */
export const eventEntry = (record: AuditRecord, eventBusName: string) => ({
  EventBusName: eventBusName,
  Source: EVENT_SOURCE,
  DetailType: record.action,
  Detail: JSON.stringify(record),
  Time: new Date(record.time),
});
