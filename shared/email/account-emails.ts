import { config } from '../config.js';
import type { JoinEmail } from '../store/user-repository.js';
import { deliverEmail } from './delivery.js';
import { joinEmailText, resetEmailText } from './messages.js';

/** The hosted pages that emailed links open (shared/api/routes/signin.ts). */
export const INVITATION_PATH = '/signin/invitation';
export const RESET_PATH = '/signin/reset';

const linkTo = (path: string, token: string) => `${config().publicOrigin}${path}?token=${token}`;

/** Sends the join email: its invitation link sets the first password (DECISIONS.md, 7 days). */
export const sendJoinEmail = (join: JoinEmail): Promise<void> =>
  deliverEmail(
    join.email,
    join.outbox,
    joinEmailText({
      name: join.email.name,
      organizationName: join.organizationName,
      link: linkTo(INVITATION_PATH, join.invitationToken),
      validSeconds: config().signIn.invitationSeconds,
    }),
  );

export const sendResetEmail = (reset: Omit<JoinEmail, 'invitationToken'> & { resetToken: string }) =>
  deliverEmail(
    reset.email,
    reset.outbox,
    resetEmailText({
      name: reset.email.name,
      organizationName: reset.organizationName,
      link: linkTo(RESET_PATH, reset.resetToken),
      validSeconds: config().signIn.resetSeconds,
    }),
  );
