import { routeGroup } from '../route-definition.js';

/**
 * Passkeys on the hosted pages (docs/passkeys.md): the browser script, the ceremonies' options,
 * signing in with a passkey, adding one after a password sign-in, and the account page. A
 * function of its own, so only it carries @simplewebauthn/server and the script.
 */
export const passkeysRoutes = routeGroup('passkeys')({
  passkeyScript: {
    route: 'GET /signin/passkeys.js',
    kind: 'page',
    summary: "The hosted pages' passkey script (@simplewebauthn/browser)",
    description:
      "Loaded by the pages that offer passkeys, under their Content-Security-Policy (`script-src 'self'`). The pages work without it; only passkeys need it.",
    response: { status: 200, description: 'JavaScript' },
  },
  passkeyOptions: {
    route: 'POST /signin/passkeys/options',
    kind: 'page',
    summary: 'WebAuthn options with a fresh challenge, for a ceremony the page is about to run',
    description:
      "`purpose` is `sign-in` (with the pending `request`: any discoverable passkey, or the person's own ones after their password), `enrol` (the passkey offered after a password sign-in) or `account` (the account page, with its `csrf`). The challenge is used once, within 5 minutes, by this browser and this ceremony only.",
    response: {
      status: 200,
      description: 'PublicKeyCredentialCreationOptionsJSON or PublicKeyCredentialRequestOptionsJSON',
    },
  },
  submitPasskeySignIn: {
    route: 'POST /signin/passkey',
    kind: 'page',
    summary: 'Signs in with a passkey, or uses one as the second factor after a password',
    description:
      "Posted by the sign-in page (or the two-step page) with the assertion. A passkey with user verification is a multi-factor sign-in (`amr` hwk or swk, user, mfa). Refusals (used or expired challenge, unknown or removed passkey, another organization's, wrong origin or RP ID, no user verification, a counter that went backwards, an INACTIVE person) show the page again (the enrolment page for a person setting up an authenticator app) and never count toward the lockout: a signature cannot be guessed, and anyone who has seen a credential id could otherwise lock its owner out. A person locked by wrong passwords or codes is refused.",
    response: { status: 303, description: 'The next step, or back to the application with a code' },
  },
  submitPromptPasskey: {
    route: 'POST /signin/passkeys',
    kind: 'page',
    summary: 'Adds the passkey made on the prompt after a password sign-in, then continues',
    description:
      'Posted by the prompt a person sees after signing in with a password while they hold no passkey.',
    response: { status: 303, description: 'Back to the application with a code, or the prompt again' },
  },
  skipPasskeyPrompt: {
    route: 'POST /signin/passkeys/skip',
    kind: 'page',
    summary: '"Not now" on the passkey prompt: continues, and this browser is not asked for 30 days',
    description: 'Posted by the prompt after a password sign-in.',
    response: { status: 303, description: 'Back to the application with a code' },
  },
  showAccount: {
    route: 'GET /signin/account',
    kind: 'page',
    summary: "The signed-in person's passkeys (list, add, rename, remove) and recovery codes",
    description:
      'For the browser session at the identity provider. Adding needs a sign-in of the last 15 minutes (with two-step verification where the organization asks for it).',
    response: { status: 200, description: 'The account page, or a page saying the person is not signed in' },
  },
  addFromAccount: {
    route: 'POST /signin/account/passkeys',
    kind: 'page',
    summary: 'Adds the passkey made on the account page',
    description: 'Posted by the account page with its CSRF token (bound to the session).',
    response: { status: 303, description: 'Back to the account page' },
  },
  renameFromAccount: {
    route: 'POST /signin/account/passkeys/rename',
    kind: 'page',
    summary: "Renames one of the person's passkeys",
    description: 'Posted by the account page with its CSRF token; a name has 1 to 64 characters.',
    response: { status: 303, description: 'Back to the account page' },
  },
  removeFromAccount: {
    route: 'POST /signin/account/passkeys/remove',
    kind: 'page',
    summary: "Removes one of the person's passkeys",
    description: 'Posted by the account page with its CSRF token; the passkey no longer signs anyone in.',
    response: { status: 303, description: 'Back to the account page' },
  },
  regenerateRecoveryCodes: {
    route: 'POST /signin/account/recovery-codes',
    kind: 'page',
    summary: "Makes new recovery codes for the person's authenticator app, replacing the earlier ones",
    description:
      'Posted by the account page with its CSRF token, for a person with an authenticator app whose sign-in is of the last 15 minutes and used two-step verification. Shows the ten new codes once; the earlier ones no longer work, and the person is told by email.',
    response: { status: 200, description: 'The new recovery codes, or the account page saying why not' },
  },
});
