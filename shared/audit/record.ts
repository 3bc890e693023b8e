import type { AuditAction } from './actions.js';
import type { Changes } from './changes.js';
import { newRecordId } from './record-id.js';

export type ActorType = 'user' | 'client' | 'operator' | 'system';
export type AuditOutcome = 'success' | 'failure' | 'denied';

/** Who acted, and from where. */
export interface AuditActor {
  type: ActorType;
  id: string;
  /** A display name where one is known when the record is written (it is not looked up). */
  name?: string;
  ip?: string;
  userAgent?: string;
  /** The application a person acted through. */
  clientId?: string;
}

export interface AuditTarget {
  type: string;
  id: string;
  name?: string;
}

/** What a sign-in record adds: the application, how the person authenticated, the SSO provider. */
export interface SignInDetails {
  application?: string;
  amr?: string[];
  provider?: string;
}

/** One audit record, as stored, queried, streamed and digested (docs/audit.md). */
export interface AuditRecord {
  /** A ULID: sortable by time, unique without coordination. */
  id: string;
  organizationId: string;
  /** Epoch milliseconds; the same instant as the id's time part. */
  time: number;
  action: AuditAction;
  actor: AuditActor;
  targets: AuditTarget[];
  outcome: AuditOutcome;
  reason?: string;
  changes?: Changes;
  requestId?: string;
  signIn?: SignInDetails;
  /** `token.issued` only: how many tokens the client was issued in the minute `minute`. */
  count?: number;
  /**
   * `token.issued` only: the first millisecond of the minute counted. The record is timed when
   * written, after the minute (it may be a later hour, whose digest then lists it).
   */
  minute?: number;
}

/** What the code that makes a change tells about it; the scope adds who and where. */
export interface AuditEvent {
  organizationId: string;
  action: AuditAction;
  targets: AuditTarget[];
  changes?: Changes;
  outcome?: AuditOutcome;
  reason?: string;
  signIn?: SignInDetails;
  count?: number;
  minute?: number;
  /**
   * Who acted, where the scope does not know: a person signing in is the actor of their sign-in
   * (the scope's address and user agent stay).
   */
  actor?: Partial<AuditActor>;
}

/** Who acts where nobody is known: jobs, the stream, digests. */
export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: 'idp' };

/** A record of `event`, by `actor` unless the event names its own, at `now`. */
export const auditRecord = (
  event: AuditEvent,
  context: { actor: AuditActor; requestId?: string },
  now: number,
): AuditRecord => {
  const { actor, organizationId, action, targets, outcome, changes, ...details } = event;
  const record: AuditRecord = {
    id: newRecordId(now),
    organizationId,
    time: now,
    action,
    actor: actor ? { ...context.actor, ...actor } : context.actor,
    targets,
    outcome: outcome ?? 'success',
  };
  for (const [field, value] of Object.entries(details))
    if (value !== undefined) Object.assign(record, { [field]: value });
  if (changes && Object.keys(changes).length > 0) record.changes = changes;
  if (context.requestId) record.requestId = context.requestId;
  return record;
};

/**
 * A stored record as the listing answers it, or undefined where the stored text is not the record
 * its key names (edited in the table by hand: JSON that does not parse, or another record's id or
 * organization). The listing leaves such a record out rather than failing every page it is on;
 * `audit verify` names it.
 */
export const storedRecord = (
  stored: { id: string; text: string },
  organizationId: string,
): AuditRecord | undefined => {
  let record: unknown;
  try {
    record = JSON.parse(stored.text);
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null) return undefined;
  const { id, organizationId: owner } = record as Partial<AuditRecord>;
  return id === stored.id && owner === organizationId ? (record as AuditRecord) : undefined;
};
