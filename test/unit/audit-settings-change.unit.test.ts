import { describe, expect, it } from 'vitest';
import { DEFAULT_AUDIT_SETTINGS } from '../../shared/audit/settings.js';
import { changedAuditSettings } from '../../shared/domain/audit-settings-change.js';
import { PreconditionFailed } from '../../shared/domain/errors.js';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PreconditionFailed);
    return error as PreconditionFailed;
  }
  throw new Error('not refused');
};

describe('changedAuditSettings', () => {
  it('changes what is given and keeps the rest', () => {
    expect(changedAuditSettings(DEFAULT_AUDIT_SETTINGS, { retentionDays: 30 })).toEqual({
      retentionDays: 30,
      shards: 1,
    });
    expect(changedAuditSettings({ retentionDays: 30, shards: 2 }, { shards: 4 })).toEqual({
      retentionDays: 30,
      shards: 4,
    });
    expect(changedAuditSettings({ retentionDays: 30, shards: 2 }, {})).toEqual({
      retentionDays: 30,
      shards: 2,
    });
  });

  it('keeps records 1 to 3650 days, whole days only', () => {
    for (const retentionDays of [1, 3650])
      expect(changedAuditSettings(DEFAULT_AUDIT_SETTINGS, { retentionDays }).retentionDays).toBe(
        retentionDays,
      );
    for (const retentionDays of [0, 3651, 1.5, Number.NaN]) {
      expect(refusal(() => changedAuditSettings(DEFAULT_AUDIT_SETTINGS, { retentionDays })).fields).toEqual([
        { field: 'retentionDays', message: 'A whole number from 1 to 3650', rejectedValue: retentionDays },
      ]);
    }
  });

  it('spreads records over 1 to 16 shards, and shards only grow', () => {
    expect(changedAuditSettings({ retentionDays: 90, shards: 4 }, { shards: 16 }).shards).toBe(16);
    expect(changedAuditSettings({ retentionDays: 90, shards: 4 }, { shards: 4 }).shards).toBe(4);
    for (const shards of [0, 17, 2.5])
      expect(refusal(() => changedAuditSettings(DEFAULT_AUDIT_SETTINGS, { shards })).fields[0]?.field).toBe(
        'shards',
      );
    const shrinking = refusal(() => changedAuditSettings({ retentionDays: 90, shards: 4 }, { shards: 3 }));
    expect(shrinking.message).toMatch(/^Audit shards only grow: .* over 4 shards/);
    expect(shrinking.fields).toEqual([
      { field: 'shards', message: 'At least 4, the current number', rejectedValue: 3 },
    ]);
  });
});
