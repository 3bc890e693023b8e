import type { AuditRecord } from './record.js';

/** The `source` of every event the service puts on its bus. */
export const EVENT_SOURCE = 'idp';
/** EventBridge takes at most 10 entries per PutEvents call. */
export const MAX_ENTRIES_PER_PUT = 10;

/**
 * A new item the table's stream reports, as the stream has it (attribute values by type), with
 * its place in the stream. Only the few string attributes that make an audit record are read:
 * other items may hold values a generic unmarshall refuses, and they are none of this code's
 * business.
 */
export interface StreamedItem {
  sequenceNumber: string;
  eventName: string;
  image: Readonly<Record<string, { S?: string }>> | undefined;
}

/**
 * The audit records among a batch of stream records, in stream order: newly inserted record
 * items only (not their target copies, not changes to other items). The stream's filter already
 * asks for these; checking again keeps a widened filter from forwarding anything else.
 */
export const auditRecordsIn = (
  items: readonly StreamedItem[],
): { sequenceNumber: string; record: AuditRecord }[] =>
  items.flatMap(({ sequenceNumber, eventName, image }) => {
    const text = image?.record?.S;
    return eventName === 'INSERT' &&
      image?.pk?.S?.startsWith('AUDIT#') &&
      image.sk?.S === 'RECORD' &&
      text !== undefined
      ? [{ sequenceNumber, record: JSON.parse(text) as AuditRecord }]
      : [];
  });

/** The EventBridge entry of a record: `source` idp, `detail-type` its action, `detail` the record. */
export const eventEntry = (record: AuditRecord, eventBusName: string) => ({
  EventBusName: eventBusName,
  Source: EVENT_SOURCE,
  DetailType: record.action,
  Detail: JSON.stringify(record),
  Time: new Date(record.time),
});
