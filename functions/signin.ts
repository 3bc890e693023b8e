import { signinRoutes } from '../shared/api/routes/signin.js';
import { authorize, logout, submitSignIn } from '../shared/auth/browser-sign-in.js';
import {
  showForgotPassword,
  showPasswordLink,
  submitForgotPassword,
  submitPasswordLink,
} from '../shared/auth/password-links.js';
import { submitConsent, submitContinue, submitTotp } from '../shared/auth/sign-in-step-forms.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';

/** The hosted sign-in pages: each answers a complete page or redirect. */
const page =
  (answer: (event: Parameters<typeof authorize>[0]) => ReturnType<typeof authorize>) =>
  async (_input: unknown, { event }: { event: Parameters<typeof authorize>[0] }) => ({
    raw: await answer(event),
  });

export const handler = groupHandler(
  signinRoutes,
  {
    authorize: page(authorize),
    submitSignIn: page(submitSignIn),
    submitTotp: page(submitTotp),
    submitContinue: page(submitContinue),
    submitConsent: page(submitConsent),
    showForgotPassword: page(showForgotPassword),
    submitForgotPassword: page(submitForgotPassword),
    showInvitation: page(showPasswordLink('invitation')),
    acceptInvitation: page(submitPasswordLink('invitation')),
    showPasswordReset: page(showPasswordLink('reset')),
    submitPasswordReset: page(submitPasswordLink('reset')),
    endSession: page(logout),
  },
  { errorPage },
);
