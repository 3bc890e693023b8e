import { HOUR_MILLIS, hourOf } from '../../shared/audit/digest.js';
import type { AuditRecord } from '../../shared/audit/record.js';
import { MAX_AUDIT_SHARDS, RETENTION_DAYS } from '../../shared/audit/settings.js';
import { PreconditionFailed } from '../../shared/domain/errors.js';
import { auditQuery, MAX_AUDIT_PAGE } from '../../shared/schemas/audit.js';
import { identifier } from '../../shared/schemas/common.js';
import { type VerifyFinding, verifyDigests, writeHourDigest } from '../../shared/store/audit-digests.js';
import { type AuditQuery, queryAuditRecords } from '../../shared/store/audit-records.js';
import { getAuditSettings, updateAuditSettings } from '../../shared/store/organization-repository.js';
import { columns } from './columns.js';
import { type Command, lines, requireOrganization } from './command.js';
import { integer, type Options, optional, required, validated } from './options.js';
import { UsageError } from './target.js';

/** Records `audit list` prints at most: it follows the pages until then. */
const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 100_000;

/** A date (UTC midnight) or a date and time with its zone: a time without one would be ambiguous. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** Whether the date part names a day of the calendar: `Date.parse` takes 2025-02-30 as 2 March. */
const isCalendarDay = (value: string): boolean => {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** `--since` / `--until`: epoch milliseconds, or an ISO 8601 date or time with its zone. */
const timeOption = (options: Options, name: string): number | undefined => {
  const value = optional(options, name)?.trim();
  if (value === undefined) return undefined;
  const time = /^\d+$/.test(value)
    ? Number(value)
    : ISO_TIME.test(value) && isCalendarDay(value)
      ? Date.parse(value)
      : Number.NaN;
  if (!Number.isSafeInteger(time) || time < 0) {
    throw new UsageError(
      `--${name} must be epoch milliseconds or an ISO 8601 time with its zone (2025-01-31T12:00:00Z), got "${value}"`,
    );
  }
  return time;
};

/** The option each filter of GET /idp/auditEvents comes from. */
const OPTION_OF_FILTER: Record<string, string> = { actorId: 'actor', targetId: 'target' };

/** The filters, checked by the API's own schema: the CLI refuses what GET /idp/auditEvents refuses. */
const auditFilters = (options: Options): AuditQuery => {
  const given = {
    since: timeOption(options, 'since'),
    until: timeOption(options, 'until'),
    action: optional(options, 'action'),
    actorId: optional(options, 'actor'),
    targetId: optional(options, 'target'),
    outcome: optional(options, 'outcome'),
  };
  const result = auditQuery.safeParse(
    Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
  );
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = String(issue?.path[0] ?? 'action');
    const value = given[field as keyof typeof given];
    throw new UsageError(
      `--${OPTION_OF_FILTER[field] ?? field}: ${issue?.message ?? 'invalid'}${value === undefined ? '' : ` (got "${value}")`}`,
    );
  }
  const { limit: _limit, cursor: _cursor, ...filters } = result.data;
  return filters;
};

/** Up to `limit` records newest first, following the pages; whether more may follow. */
const readRecords = async (orgId: string, filters: AuditQuery, limit: number) => {
  const records: AuditRecord[] = [];
  let before: string | undefined;
  do {
    const page = await queryAuditRecords(orgId, filters, {
      limit: Math.min(MAX_AUDIT_PAGE, limit - records.length),
      ...(before ? { before } : {}),
    });
    records.push(...page.records);
    before = page.before;
  } while (before !== undefined && records.length < limit);
  return { records, more: before !== undefined };
};

const describeTarget = (target: AuditRecord['targets'][number]) =>
  `${target.type}:${target.id}${target.name ? ` (${target.name})` : ''}`;

/** One line per record, in columns: time, action, outcome, actor, targets, and a refusal's reason. */
export const recordTable = (records: readonly AuditRecord[]): string[] => {
  const rows = records.map((record) => [
    new Date(record.time).toISOString(),
    record.action,
    record.outcome,
    `${record.actor.type}:${record.actor.id}`,
    [record.targets.map(describeTarget).join(', '), record.reason].filter(Boolean).join('  '),
  ]);
  return columns(['TIME', 'ACTION', 'OUTCOME', 'ACTOR', 'TARGETS'], rows);
};

/** `audit verify`'s finding, in an operator's words. */
const describeFinding = (orgId: string, finding: Exclude<VerifyFinding, { ok: true }>) =>
  `Audit log of organization ${orgId} does not match its digest of ${new Date(finding.hour).toISOString()}: ${finding.problem}`;

const SETTINGS_CACHE_NOTE =
  "Running instances of the service read an organization's audit settings again within a minute.";

/** The audit log of an organization: reading it, and how long and how widely it is kept. */
export const AUDIT_COMMANDS: Record<string, Command> = {
  'audit list': {
    usage:
      'audit list --org ORG [--since MS|ISO] [--until MS|ISO] [--action ACTION|PREFIX.] [--actor ID] [--target ID] [--outcome success|failure|denied] [--limit N]',
    options: ['org', 'since', 'until', 'action', 'actor', 'target', 'outcome', 'limit'],
    notes: [
      'Newest first, with the filters of GET /idp/auditEvents: --since inclusive, --until exclusive;',
      '--action an exact action (user.created) or a prefix ending in "." (user.).',
      `Prints at most --limit records (default ${DEFAULT_LIST_LIMIT}); --json prints one JSON record per line.`,
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const filters = auditFilters(options);
      const limit = integer(options, 'limit', 1, MAX_LIST_LIMIT) ?? DEFAULT_LIST_LIMIT;
      await requireOrganization(orgId);
      const { records, more } = await readRecords(orgId, filters, limit);
      return {
        json: records,
        jsonLines: records,
        summary: lines(
          `${records.length} audit record(s) of organization ${orgId}, newest first`,
          ...(records.length > 0 ? recordTable(records).map((line) => `  ${line}`) : []),
          more &&
            `  more may follow: raise --limit (at most ${MAX_LIST_LIMIT}), or narrow with --since and --until`,
        ),
      };
    },
  },

  'audit digest': {
    usage: 'audit digest --org ORG [--hour MS|ISO]',
    options: ['org', 'hour'],
    notes: [
      "Writes the organization's signed digest of the hour holding --hour (default: the hour that ended),",
      'as the hourly function does when deployed; locally, this is how digests are made. It lists every',
      'record since the previous digest. Nothing is written when the organization has a digest of that',
      'hour or a later one, or recorded nothing since.',
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const hour = hourOf(timeOption(options, 'hour') ?? Date.now() - HOUR_MILLIS);
      // A digest covers up to the end of its hour: one of an hour still under way would claim
      // records not written yet, and stop every digest until that hour.
      if (hour + HOUR_MILLIS > Date.now()) throw new UsageError('--hour must be in an hour that has ended');
      await requireOrganization(orgId);
      const head = await writeHourDigest(orgId, hour);
      const when = new Date(hour).toISOString();
      return {
        json: { organizationId: orgId, hour, written: head !== undefined, records: head?.records ?? 0 },
        summary: head
          ? `Digest of ${when} written for organization ${orgId}: ${head.records} record(s)`
          : `No digest written for organization ${orgId} and ${when}: it has one of that hour or later, or no records since`,
      };
    },
  },

  'audit verify': {
    usage: 'audit verify --org ORG [--since MS|ISO]',
    options: ['org', 'since'],
    notes: [
      'Recomputes every digest of the organization from --since on (default: all) and compares each',
      "signature, each digest's link to the one before, and each record the digests list with the",
      'table: exit code 1 names the first digest or record that does not match (changed, missing, or',
      'not in the digest).',
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const since = timeOption(options, 'since');
      await requireOrganization(orgId);
      const finding = await verifyDigests(orgId, since === undefined ? 0 : hourOf(since));
      if (!finding.ok) throw new PreconditionFailed(describeFinding(orgId, finding));
      return {
        json: { organizationId: orgId, ...finding },
        summary: `Audit log of organization ${orgId} matches its ${finding.digests} digest(s): ${finding.records} record(s) checked`,
      };
    },
  },

  'audit settings': {
    usage: `audit settings --org ORG [--retention-days ${RETENTION_DAYS.min}..${RETENTION_DAYS.max}] [--shards 1..${MAX_AUDIT_SHARDS}]`,
    options: ['org', 'retention-days', 'shards'],
    notes: [
      'Without a change, prints the settings. Records expire --retention-days after they are written',
      '(default 90; a change applies to records written from then on). An organization writing R records',
      'a second at its peak needs ceil(R / 500) shards; shards only grow. Every query reads every shard.',
      SETTINGS_CACHE_NOTE,
    ].join('\n'),
    run: async (options) => {
      const orgId = validated(identifier, required(options, 'org'), 'org');
      const retentionDays = integer(options, 'retention-days', RETENTION_DAYS.min, RETENTION_DAYS.max);
      const shards = integer(options, 'shards', 1, MAX_AUDIT_SHARDS);
      const changing = retentionDays !== undefined || shards !== undefined;
      const settings = changing
        ? await updateAuditSettings(orgId, {
            ...(retentionDays !== undefined ? { retentionDays } : {}),
            ...(shards !== undefined ? { shards } : {}),
          })
        : await getAuditSettings(orgId);
      return {
        json: { organizationId: orgId, ...settings },
        summary: lines(
          `Audit settings of organization ${orgId}${changing ? ' (updated)' : ''}`,
          `  records kept ${settings.retentionDays} day(s), spread over ${settings.shards} shard(s)`,
          changing && `  ${SETTINGS_CACHE_NOTE}`,
        ),
      };
    },
  },
};
