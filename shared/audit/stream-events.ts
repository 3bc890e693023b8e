import { AUDIT_PREFIX } from '../store/keys.js';
import { type AuditRecord, storedRecord } from './record.js';

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
 * The record a record item holds, or undefined for one the service did not write: text that is
 * not the record its key names (the listing's rule, `storedRecord`: another id, or another
 * organization's record under this one's key), or without the action and time an event needs.
 */
const recordOf = (pk: string, text: string): AuditRecord | undefined => {
  const owned = pk.slice(AUDIT_PREFIX.length);
  const cut = owned.lastIndexOf('#');
  if (cut <= 0) return undefined;
  const record = storedRecord({ id: owned.slice(cut + 1), text }, owned.slice(0, cut));
  return record &&
    typeof record.action === 'string' &&
    (record.action as string) !== '' &&
    Number.isFinite(record.time)
    ? record
    : undefined;
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
    const pk = image?.pk?.S;
    if (eventName !== 'INSERT' || !pk?.startsWith(AUDIT_PREFIX) || image?.sk?.S !== 'RECORD') continue;
    const record = text === undefined ? undefined : recordOf(pk, text);
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

/** EventBridge takes at most 256 KB of entries per PutEvents call, and no larger entry. */
export const MAX_PUT_BYTES = 256 * 1024;

type EventEntry = ReturnType<typeof eventEntry>;

/** An entry's size as EventBridge counts it: 14 bytes of time, then its texts in UTF-8. */
const entryBytes = (entry: EventEntry) =>
  14 +
  Buffer.byteLength(entry.Source) +
  Buffer.byteLength(entry.DetailType) +
  Buffer.byteLength(entry.Detail);

/**
 * The PutEvents calls of a batch, in stream order: at most ten entries and 256 KB each. A record
 * too large for any event (a role of thousands of permissions) is `tooLarge`: skipped, or it would
 * hold up the records after it on every retry; the table keeps it and the API lists it.
 */
export const eventChunks = (
  records: readonly { sequenceNumber: string; record: AuditRecord }[],
  eventBusName: string,
): { chunks: { sequenceNumber: string; entry: EventEntry }[][]; tooLarge: string[] } => {
  const chunks: { sequenceNumber: string; entry: EventEntry }[][] = [];
  const tooLarge: string[] = [];
  let current: { sequenceNumber: string; entry: EventEntry }[] = [];
  let bytes = 0;
  for (const { sequenceNumber, record } of records) {
    const entry = eventEntry(record, eventBusName);
    const size = entryBytes(entry);
    if (size > MAX_PUT_BYTES) {
      tooLarge.push(record.id);
      continue;
    }
    if (current.length === MAX_ENTRIES_PER_PUT || bytes + size > MAX_PUT_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push({ sequenceNumber, entry });
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return { chunks, tooLarge };
};
