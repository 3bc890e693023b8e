/**
 * The texts of the emails the service sends (plain text: every mail client shows it, and a link
 * written out in full can be copied when it cannot be clicked). Pure.
 */

export interface EmailText {
  subject: string;
  text: string;
}

export type AccountEmailKind = 'invitation' | 'reset';

/** The kinds of email the outbox records (shared/store/outbox.ts). */
export const EMAIL_TYPES = ['JOIN_EMAIL', 'PASSWORD_RESET_EMAIL', 'SECURITY_NOTICE_EMAIL'] as const;

const duration = (seconds: number) =>
  seconds >= 86_400 ? `${Math.round(seconds / 86_400)} days` : `${Math.round(seconds / 60)} minutes`;

/** A change of how a person signs in, which they are told of (OWASP ASVS 2.5.5). */
export type SecurityChange =
  | 'password'
  | 'email-changed'
  | 'mfa-reset'
  | 'mfa-enrolled'
  | 'recovery-codes-regenerated'
  | 'passkey-added'
  | 'passkey-removed';

const NOTICES: Record<SecurityChange, { subject: string; what: string; otherwise: string }> = {
  password: {
    subject: 'Your password for {org} was changed',
    what: 'The password of your account at {org} was just changed, and every place you were signed in was signed out.',
    otherwise:
      'choose a new password at once with "Forgot your password?" on the sign-in page, and tell your administrator.',
  },
  'email-changed': {
    subject: 'The email of your account at {org} was changed',
    what: 'The email address you sign in with at {org} was just changed: this address no longer receives its emails, such as password reset links.',
    otherwise: 'tell your administrator at once: whoever changed it can now reset your password.',
  },
  'mfa-reset': {
    subject: 'Two-step verification for {org} was reset',
    what: 'The two-step verification of your account at {org} was just reset: at your next sign-in you set up an authenticator app again.',
    otherwise: 'tell your administrator at once.',
  },
  'mfa-enrolled': {
    subject: 'An authenticator app was set up for {org}',
    what: 'An authenticator app was just set up for the two-step verification of your account at {org}.',
    otherwise: 'change your password at once and tell your administrator.',
  },
  'recovery-codes-regenerated': {
    subject: 'New recovery codes were made for your account at {org}',
    what: 'New recovery codes for the two-step verification of your account at {org} were just made on your account page; the earlier ones no longer work.',
    otherwise: 'change your password at once and tell your administrator.',
  },
  'passkey-added': {
    subject: 'A passkey was added to your account at {org}',
    what: 'A passkey was just added to your account at {org}; it signs you in on its own.',
    otherwise: 'remove it on your account page, change your password, and tell your administrator.',
  },
  'passkey-removed': {
    subject: 'A passkey was removed from your account at {org}',
    what: 'A passkey was just removed from your account at {org}; it no longer signs you in.',
    otherwise: 'change your password at once and tell your administrator.',
  },
};

/** The notice of a change of how the person signs in: what changed, and what to do if it was not them. */
export const securityNoticeText = (
  change: SecurityChange,
  { name, organizationName: org }: { name: string; organizationName: string },
): EmailText => {
  const notice = NOTICES[change];
  return {
    subject: notice.subject.replace('{org}', org),
    text: `Hello ${name},\n\n${notice.what.replace('{org}', org)}\n\nIf you did this, there is nothing more to do. If you did not, ${notice.otherwise}`,
  };
};

/** The join email (an invitation link) or the password reset email. */
export const accountEmailText = (
  kind: AccountEmailKind,
  {
    name,
    organizationName: org,
    link,
    validSeconds,
  }: { name: string; organizationName: string; link: string; validSeconds: number },
): EmailText => {
  const invitation = kind === 'invitation';
  return {
    subject: invitation ? `You are invited to ${org}` : `Reset your password for ${org}`,
    text: `Hello ${name},\n\n${
      invitation
        ? `You have been invited to ${org}. Follow this link to choose your password:`
        : `Someone asked to reset your password for ${org}. Follow this link to choose a new one:`
    }\n\n${link}\n\nThe link works once and for ${duration(validSeconds)}. ${
      invitation
        ? 'If you did not expect this email, you can ignore it.'
        : 'If you did not ask for this, ignore this email: your password stays as it is.'
    }`,
  };
};
