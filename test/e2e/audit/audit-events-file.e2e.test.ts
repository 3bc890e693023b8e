import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { AuditRecord } from '../../../shared/audit/record.js';
import { idFromLocation, uniqueEmail, useService } from '../../support/service.js';

/** `npm start`'s audit events: each new record, from the table's stream, as one line of a JSONL file. */
const service = useService({ auditEventsFile: true });

const linesOfFile = (): AuditRecord[] => {
  let text = '';
  try {
    text = readFileSync(join(service.dataDirectory, 'audit-events.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);
};

describe('the local audit events file', () => {
  it('gets a line per new record, the record as the API answers it, once each', async () => {
    const created = await service.call('POST', '/idp/users', {
      token: service.admin.token,
      body: { email: uniqueEmail('jsonl'), name: 'Streamed Person', userType: 'STANDARD' },
    });
    expect(created.status).toBe(204);
    const userId = idFromLocation(created);
    const renamed = await service.call('PUT', `/idp/users/${userId}`, {
      token: service.admin.token,
      body: { name: 'Streamed Renamed' },
    });
    expect(renamed.status).toBe(200);

    const answered = (
      await service.call<AuditRecord[]>('GET', `/idp/auditEvents?targetId=${userId}`, {
        token: service.admin.token,
      })
    ).body;
    expect(answered.map((record) => record.action)).toEqual(['user.updated', 'user.created']);
    await vi.waitFor(
      () => {
        const streamed = linesOfFile().filter((record) =>
          record.targets.some((target) => target.id === userId),
        );
        expect(streamed).toHaveLength(2);
      },
      { timeout: 15_000, interval: 100 },
    );
    const streamed = linesOfFile();
    for (const record of answered) expect(streamed).toContainEqual(record);
    // Once each: no id twice, and a target copy never shows as a record of its own.
    expect(new Set(streamed.map((record) => record.id)).size).toBe(streamed.length);
  });
});
