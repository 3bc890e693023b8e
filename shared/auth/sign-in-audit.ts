import type { AuditActor, AuditEvent, AuditTarget, SignInDetails } from '../audit/record.js';
import { logger } from '../http/logger.js';
import { emailAddress } from '../schemas/common.js';
import { writeAuditRecord } from '../store/audit-records.js';

/**
 * What the sign-in records say about the person (docs/audit.md, "Sign-in records"): the hosted
 * pages act for nobody known until the person is, so each record names them as its actor; the
 * audit scope keeps the address and user agent API Gateway saw.
 */

/** A person the page knows: by id, named by their email (never looked up for the record). */
export const personActor = (user: { id: string; email?: string }): Partial<AuditActor> => ({
  type: 'user',
  id: user.id,
  ...(user.email ? { name: user.email } : {}),
});

export const personTarget = (user: { id: string; email?: string }): AuditTarget => ({
  type: 'user',
  id: user.id,
  ...(user.email ? { name: user.email } : {}),
});

/**
 * Someone who typed an email no account has: anonymous, named by what they typed if it is an email
 * address. Anything else is left out: people type their password into the email field, and no
 * record holds a password (OWASP's logging guidance).
 */
export const attemptedEmailActor = (email: string | undefined): Partial<AuditActor> => {
  const typed = (email ?? '').trim();
  return { type: 'user', id: 'anonymous', ...(emailAddress.safeParse(typed).success ? { name: typed } : {}) };
};

/** The `signIn` details of a record: the application, how the person authenticated, the SSO provider. */
export const signInDetails = (
  application: string | undefined,
  person?: { amr?: string[]; provider?: string | undefined },
): SignInDetails => ({
  ...(application ? { application } : {}),
  ...(person?.amr ? { amr: person.amr } : {}),
  ...(person?.provider ? { provider: person.provider } : {}),
});

/**
 * Writes a sign-in record that rides with no change of its own (a refusal, a sign-out), once the
 * outcome is decided. Best effort: a failure to record is logged, never shown to the person.
 */
export const recordSignInEvent = async (event: AuditEvent): Promise<void> => {
  try {
    await writeAuditRecord(event);
  } catch (error) {
    logger.warn('audit record of a sign-in not written', { action: event.action, error: error as Error });
  }
};
