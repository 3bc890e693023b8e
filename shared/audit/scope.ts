import { AsyncLocalStorage } from 'node:async_hooks';
import { type AuditActor, SYSTEM_ACTOR } from './record.js';

/** Who is acting in the current request or command, and the request's id. */
export interface AuditScope {
  actor: AuditActor;
  requestId?: string;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/**
 * Runs `work` with `scope` as the actor of every record written inside it. The store reads it
 * where it writes a change with its record, so no repository signature carries who acts.
 */
export const withAuditScope = <T>(scope: AuditScope, work: () => T): T => scopes.run(scope, work);

/** The current scope; outside any, the system acts. */
export const auditScope = (): AuditScope => scopes.getStore() ?? { actor: SYSTEM_ACTOR };
