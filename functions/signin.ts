import { signinRoutes } from '../shared/api/routes/signin.js';
import { authorize, authorizeByPost, submitSignIn } from '../shared/auth/browser-sign-in.js';
import { hostedPage } from '../shared/auth/hosted-page.js';
import { confirmLogout, logout } from '../shared/auth/logout.js';
import { submitConsent, submitContinue, submitTotp } from '../shared/auth/sign-in-step-forms.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';

/** The hosted sign-in pages: each answers a complete page or redirect. */
export const handler = groupHandler(
  signinRoutes,
  {
    authorize: hostedPage(authorize),
    authorizeByPost: hostedPage(authorizeByPost),
    submitSignIn: hostedPage(submitSignIn),
    submitTotp: hostedPage(submitTotp),
    submitContinue: hostedPage(submitContinue),
    submitConsent: hostedPage(submitConsent),
    endSession: hostedPage(logout),
    confirmEndSession: hostedPage(confirmLogout),
  },
  { errorPage },
);
