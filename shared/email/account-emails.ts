import { config } from '../config.js';
import { getOrganization } from '../store/organization-repository.js';
import { outboxPut } from '../store/outbox.js';
import type { JoinEmail, UserRecord } from '../store/user-repository.js';
import { writeOne } from '../store/writes.js';
import { deliverEmail } from './delivery.js';
import {
  type AccountEmailKind,
  accountEmailText,
  type SecurityChange,
  securityNoticeText,
} from './messages.js';

/** The hosted pages that emailed links open (shared/api/routes/accounts.ts). */
export const INVITATION_PATH = '/signin/invitation';
export const RESET_PATH = '/signin/reset';

const PATHS: Record<AccountEmailKind, string> = { invitation: INVITATION_PATH, reset: RESET_PATH };

/** The link an account email carries: the hosted page, with the token only the email holds. */
export const accountLink = (kind: AccountEmailKind, token: string) =>
  `${config().publicOrigin}${PATHS[kind]}?token=${token}`;

/**
 * Sends the join email (its invitation link sets the first password, DECISIONS.md: 7 days) or
 * the reset email (1 hour), the link carrying the token that only the email holds.
 */
export const sendAccountEmail = (
  kind: AccountEmailKind,
  email: Omit<JoinEmail, 'invitationToken'>,
  token: string,
) => {
  const { signIn } = config();
  return deliverEmail(
    email.email,
    email.outbox,
    accountEmailText(kind, {
      name: email.email.name,
      organizationName: email.organizationName,
      link: accountLink(kind, token),
      validSeconds: kind === 'invitation' ? signIn.invitationSeconds : signIn.resetSeconds,
    }),
  );
};

export const sendJoinEmail = (join: JoinEmail) => sendAccountEmail('invitation', join, join.invitationToken);

/**
 * Tells a person how they sign in changed (after the change has committed: the notice is recorded
 * in the outbox, then sent). Nothing in it is a credential.
 */
/** Who a notice about `user` goes to: the person, at their address as it is. */
export const noticeRecipient = (user: Pick<UserRecord, 'organizationId' | 'id' | 'email' | 'name'>) => ({
  organizationId: user.organizationId,
  userId: user.id,
  to: user.email,
  name: user.name,
});

export const sendSecurityNotice = async (
  person: { organizationId: string; userId: string; to: string; name: string },
  change: SecurityChange,
  /** The organization's name, when the caller has read it already. */
  knownOrganizationName?: string,
) => {
  const email = { ...person, type: 'SECURITY_NOTICE_EMAIL' as const };
  const outbox = outboxPut(email, Date.now());
  // The name is read beside the outbox write, which does not need it.
  const [organizationName] = await Promise.all([
    knownOrganizationName ??
      getOrganization(person.organizationId).then(
        (organization) => organization?.name ?? person.organizationId,
      ),
    writeOne(outbox.write),
  ]);
  await deliverEmail(email, outbox.ref, securityNoticeText(change, { name: person.name, organizationName }));
};
