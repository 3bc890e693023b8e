import { accountsRoutes } from '../shared/api/routes/accounts.js';
import { hostedPage } from '../shared/auth/hosted-page.js';
import {
  showForgotPassword,
  showPasswordLink,
  submitForgotPassword,
  submitPasswordLink,
} from '../shared/auth/password-links.js';
import { showTotpEnrolment } from '../shared/auth/totp-enrolment.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';

/** The hosted account pages: emailed links, forgotten passwords, TOTP enrolment. */
export const handler = groupHandler(
  accountsRoutes,
  {
    showTotpEnrolment: hostedPage(showTotpEnrolment),
    showForgotPassword: hostedPage(showForgotPassword),
    submitForgotPassword: hostedPage(submitForgotPassword),
    showInvitation: hostedPage(showPasswordLink('invitation')),
    acceptInvitation: hostedPage(submitPasswordLink('invitation')),
    showPasswordReset: hostedPage(showPasswordLink('reset')),
    submitPasswordReset: hostedPage(submitPasswordLink('reset')),
  },
  { errorPage },
);
