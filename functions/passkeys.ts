import { passkeysRoutes } from '../shared/api/routes/passkeys.js';
import { hostedPage } from '../shared/auth/hosted-page.js';
import { groupHandler } from '../shared/http/group-handler.js';
import { errorPage } from '../shared/pages/sign-in-pages.js';
import {
  addFromAccount,
  regenerateRecoveryCodes,
  removeFromAccount,
  renameFromAccount,
  showAccount,
} from '../shared/passkeys/account.js';
import { passkeyScript } from '../shared/passkeys/browser-script.js';
import { skipPasskeyPrompt, submitPromptPasskey } from '../shared/passkeys/enrolment.js';
import { passkeyOptions } from '../shared/passkeys/options.js';
import { submitPasskeySignIn } from '../shared/passkeys/passkey-sign-in.js';

/** The script may change with a deploy: browsers keep it five minutes. */
const serveScript = async () => ({
  statusCode: 200,
  headers: {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=300',
    'x-content-type-options': 'nosniff',
  },
  body: await passkeyScript(),
});

/** Passkeys on the hosted pages: the script, ceremonies, sign-in, the prompt, the account page (with recovery codes). */
export const handler = groupHandler(
  passkeysRoutes,
  {
    passkeyScript: hostedPage(serveScript),
    passkeyOptions: hostedPage(passkeyOptions),
    submitPasskeySignIn: hostedPage(submitPasskeySignIn),
    submitPromptPasskey: hostedPage(submitPromptPasskey),
    skipPasskeyPrompt: hostedPage(skipPasskeyPrompt),
    showAccount: hostedPage(showAccount),
    addFromAccount: hostedPage(addFromAccount),
    renameFromAccount: hostedPage(renameFromAccount),
    removeFromAccount: hostedPage(removeFromAccount),
    regenerateRecoveryCodes: hostedPage(regenerateRecoveryCodes),
  },
  { errorPage },
);
