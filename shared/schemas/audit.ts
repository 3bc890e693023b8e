import { AUDIT_ACTIONS, actionFilter } from '../audit/actions.js';
import * as z from '../zod.js';
import { epochMillis, identifier } from './common.js';
import { NO_CONTROL_CHARACTERS, ONE_LINE } from './text.js';

export const DEFAULT_AUDIT_PAGE = 100;
export const MAX_AUDIT_PAGE = 1000;

const outcome = z.enum(['success', 'failure', 'denied']);

/** The opaque cursor of `Link rel="next"`: the id the next page continues below. */
const CURSOR = /^[A-Za-z0-9_-]{1,100}$/;
export const encodeCursor = (before: string): string =>
  Buffer.from(JSON.stringify({ b: before })).toString('base64url');
export const decodeCursor = (cursor: string): string | undefined => {
  try {
    const { b } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { b?: unknown };
    return typeof b === 'string' && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(b) ? b : undefined;
  } catch {
    return undefined;
  }
};

export const auditQuery = z.strictObject({
  since: z.optional(
    z.withMeta(z.coerce.number().check(z.int(), z.gte(0)), { description: 'Epoch ms, inclusive' }),
  ),
  until: z.optional(
    z.withMeta(z.coerce.number().check(z.int(), z.gte(0)), { description: 'Epoch ms, exclusive' }),
  ),
  action: z.optional(
    z.withMeta(
      z.string().check(
        z.maxLength(100),
        z.regex(/^[a-zA-Z.]+$/, 'Letters and dots'),
        z.refine(
          (value) => actionFilter(value) !== undefined,
          'An action of the audit log, or a prefix of one ending in "."',
        ),
      ),
      { description: 'An exact action (`user.created`) or a prefix ending in `.` (`user.`)' },
    ),
  ),
  actorId: z.optional(identifier),
  targetId: z.optional(identifier),
  outcome: z.optional(outcome),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_AUDIT_PAGE)), DEFAULT_AUDIT_PAGE),
  cursor: z.optional(
    z.string().check(
      z.maxLength(100),
      z.regex(CURSOR, 'The cursor of a Link rel="next"'),
      z.refine((value) => decodeCursor(value) !== undefined, 'The cursor of a Link rel="next"'),
    ),
  ),
});

/** Text a record carries (names, a user agent, a reason): one line, bounded where it is written. */
const recordText = z.string().check(z.maxLength(1024), z.regex(ONE_LINE, NO_CONTROL_CHARACTERS));
const recordId = z.withMeta(z.string().check(z.length(26), z.regex(/^[0-9A-HJKMNP-TV-Z]{26}$/)), {
  description: 'A ULID: sortable by time',
});

const changeOfField = z.union([z.literal('changed'), z.object({ from: z.unknown(), to: z.unknown() })]);

/**
 * Names a record writes that are not the service's own identifiers: a changed field (a person's
 * additional property may be named "Cost Center"), the id a refused request named (as sent).
 */
const recordedName = (max: number) =>
  z.string().check(z.minLength(1), z.maxLength(max), z.regex(ONE_LINE, NO_CONTROL_CHARACTERS));

export const auditRecordModel = z.withMeta(
  z.object({
    id: recordId,
    organizationId: identifier,
    time: epochMillis,
    action: z.enum(AUDIT_ACTIONS),
    actor: z.object({
      type: z.enum(['user', 'client', 'operator', 'system']),
      id: identifier,
      name: z.optional(recordText),
      ip: z.optional(recordText),
      userAgent: z.optional(recordText),
      clientId: z.optional(identifier),
    }),
    targets: z
      .array(z.object({ type: identifier, id: recordedName(128), name: z.optional(recordText) }))
      .check(z.maxLength(10)),
    outcome,
    reason: z.optional(recordText),
    changes: z.optional(
      z.withMeta(z.record(recordedName(256), changeOfField), {
        maxProperties: 100,
        description: 'Per changed field, its values before and after; a secret only as "changed"',
      }),
    ),
    requestId: z.optional(recordText),
    signIn: z.optional(
      z.object({
        application: z.optional(identifier),
        amr: z.optional(z.array(identifier).check(z.maxLength(10))),
        provider: z.optional(identifier),
      }),
    ),
    count: z.optional(
      z.withMeta(z.number(), { description: '`token.issued`: tokens issued in the minute `minute`' }),
    ),
    minute: z.optional(
      z.withMeta(z.number(), {
        description:
          '`token.issued`: the first millisecond (epoch) of the minute counted; the record is timed when written, after it',
      }),
    ),
  }),
  { id: 'AuditRecord', description: 'One audit record (docs/audit.md)' },
);
