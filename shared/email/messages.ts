/**
 * The texts of the emails the service sends (plain text: every mail client shows it, and a link
 * written out in full can be copied when it cannot be clicked). Pure.
 */

export interface EmailText {
  subject: string;
  text: string;
}

export type AccountEmailKind = 'invitation' | 'reset';

const duration = (seconds: number) =>
  seconds >= 86_400 ? `${Math.round(seconds / 86_400)} days` : `${Math.round(seconds / 60)} minutes`;

/**
 * The notice that a password was set through a reset link or changed (OWASP ASVS 2.5.5: a person
 * hears of every change of how they sign in, so someone else's change does not go unseen).
 */
export const passwordChangedText = ({
  name,
  organizationName: org,
}: {
  name: string;
  organizationName: string;
}): EmailText => ({
  subject: `Your password for ${org} was changed`,
  text: `Hello ${name},\n\nThe password of your account at ${org} was just changed, and every place you were signed in was signed out.\n\nIf you did this, there is nothing more to do. If you did not, choose a new password at once with "Forgot your password?" on the sign-in page, and tell your administrator.`,
});

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
