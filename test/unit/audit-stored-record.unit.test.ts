import { describe, expect, it } from 'vitest';
import { type AuditRecord, storedRecord } from '../../shared/audit/record.js';

const record: AuditRecord = {
  id: '01JZ0000000000000000000000',
  organizationId: 'org-1',
  time: 1_750_000_000_000,
  action: 'user.updated',
  actor: { type: 'client', id: 'c1' },
  targets: [{ type: 'user', id: 'u1' }],
  outcome: 'success',
};
const stored = (text: string, id = record.id) => storedRecord({ id, text }, 'org-1');

describe('a stored audit record, as the listing reads it', () => {
  it('is the record its key names', () => {
    expect(stored(JSON.stringify(record))).toEqual(record);
  });

  it('is nothing where the text was edited into something else', () => {
    expect(stored('{"id": "01JZ')).toBeUndefined();
    for (const text of ['null', '7', '"text"', '[]', '{}']) expect(stored(text), text).toBeUndefined();
    expect(stored(JSON.stringify({ ...record, id: '01JZ0000000000000000000001' }))).toBeUndefined();
    expect(stored(JSON.stringify({ ...record, organizationId: 'org-2' }))).toBeUndefined();
  });
});
