/**
 * The texts of the emails the service sends (plain text: every mail client shows it, and a link
 * written out in full can be copied when it cannot be clicked). Pure.
 */

export interface EmailText {
  subject: string;
  text: string;
}

const days = (seconds: number) => Math.round(seconds / 86_400);
const duration = (seconds: number) =>
  seconds >= 86_400
    ? `${days(seconds)} day${days(seconds) === 1 ? '' : 's'}`
    : `${Math.round(seconds / 60)} minutes`;

export const joinEmailText = (options: {
  name: string;
  organizationName: string;
  link: string;
  validSeconds: number;
}): EmailText => ({
  subject: `You are invited to ${options.organizationName}`,
  text: [
    `Hello ${options.name},`,
    '',
    `You have been invited to ${options.organizationName}. Follow this link to choose your password:`,
    '',
    options.link,
    '',
    `The link works once and for ${duration(options.validSeconds)}. If you did not expect this email, you can ignore it.`,
  ].join('\n'),
});

export const resetEmailText = (options: {
  name: string;
  organizationName: string;
  link: string;
  validSeconds: number;
}): EmailText => ({
  subject: `Reset your password for ${options.organizationName}`,
  text: [
    `Hello ${options.name},`,
    '',
    `Someone asked to reset your password for ${options.organizationName}. Follow this link to choose a new one:`,
    '',
    options.link,
    '',
    `The link works once and for ${duration(options.validSeconds)}. If you did not ask for this, ignore this email: your password stays as it is.`,
  ].join('\n'),
});
