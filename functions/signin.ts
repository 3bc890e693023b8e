import { signinRoutes } from '../shared/api/routes/signin.js';
import { authorize, logout, submitSignIn } from '../shared/auth/browser-sign-in.js';
import { groupHandler } from '../shared/http/group-handler.js';

/** The hosted sign-in pages: each answers a complete page or redirect. */
export const handler = groupHandler(signinRoutes, {
  authorize: async (_input, { event }) => ({ raw: await authorize(event) }),
  submitSignIn: async (_input, { event }) => ({ raw: await submitSignIn(event) }),
  endSession: async (_input, { event }) => ({ raw: await logout(event) }),
});
