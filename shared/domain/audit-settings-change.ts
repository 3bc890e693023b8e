import { type AuditSettings, MAX_AUDIT_SHARDS, RETENTION_DAYS } from '../audit/settings.js';
import { PreconditionFailed } from './errors.js';

const within = (value: number, min: number, max: number) =>
  Number.isInteger(value) && value >= min && value <= max;

/**
 * An organization's audit settings after an operator changes some of them (the others stay).
 * Retention is 1 to 3650 days and shards 1 to 16; shards only grow, because the records already
 * written are spread over the current shards and a query reads only as many as the settings say.
 */
export const changedAuditSettings = (
  current: AuditSettings,
  change: Partial<AuditSettings>,
): AuditSettings => {
  const next = {
    retentionDays: change.retentionDays ?? current.retentionDays,
    shards: change.shards ?? current.shards,
  };
  if (!within(next.retentionDays, RETENTION_DAYS.min, RETENTION_DAYS.max)) {
    throw new PreconditionFailed('Audit records are kept 1 to 3650 days', [
      { field: 'retentionDays', message: 'A whole number from 1 to 3650', rejectedValue: next.retentionDays },
    ]);
  }
  if (!within(next.shards, 1, MAX_AUDIT_SHARDS)) {
    throw new PreconditionFailed(`An organization has 1 to ${MAX_AUDIT_SHARDS} audit shards`, [
      {
        field: 'shards',
        message: `A whole number from 1 to ${MAX_AUDIT_SHARDS}`,
        rejectedValue: next.shards,
      },
    ]);
  }
  if (next.shards < current.shards) {
    throw new PreconditionFailed(
      `Audit shards only grow: the records already written are spread over ${current.shards} shards, and fewer would hide some of them`,
      [
        {
          field: 'shards',
          message: `At least ${current.shards}, the current number`,
          rejectedValue: next.shards,
        },
      ],
    );
  }
  return next;
};
