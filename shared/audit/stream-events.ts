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

/** A record's stored text as the record, or undefined for text the service did not write. */
const parsedRecord = (text: string): AuditRecord | undefined => {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as AuditRecord)
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The audit records among a batch of stream records, in stream order: newly inserted record
 * items only (not their target copies, not changes to other items). The stream's filter already
 * asks for these; checking again keeps a widened filter from forwarding anything else. A record
 * item whose text does not read as a record (written by hand into the table) is `unreadable`:
 * skipped, so it cannot hold up the records after it until the batch goes to the dead letters.
 */
export const auditRecordsIn = (
  items: readonly StreamedItem[],
): { records: { sequenceNumber: string; record: AuditRecord }[]; unreadable: string[] } => {
  const records: { sequenceNumber: string; record: AuditRecord }[] = [];
  const unreadable: string[] = [];
  for (const { sequenceNumber, eventName, image } of items) {
    const text = image?.record?.S;
    if (eventName !== 'INSERT' || !image?.pk?.S?.startsWith('AUDIT#') || image.sk?.S !== 'RECORD') continue;
    const record = text === undefined ? undefined : parsedRecord(text);
    if (record) records.push({ sequenceNumber, record });
    else unreadable.push(sequenceNumber);
  }
  return { records, unreadable };
};

/** The EventBridge entry of a record: `source` idp, `detail-type` its action, `detail` the record. */
export const eventEntry = (record: AuditRecord, eventBusName: string) => ({
  EventBusName: eventBusName,
  Source: EVENT_SOURCE,
  DetailType: record.action,
  Detail: JSON.stringify(record),
  Time: new Date(record.time),
});
