import type { Page } from 'playwright-core';

/**
 * Chromium's virtual WebAuthn authenticator (the DevTools protocol's WebAuthn domain) on one page:
 * a platform authenticator with discoverable credentials and user verification that answers at
 * once, as a fingerprint reader of a person who always touches it would. `backupEligible` makes
 * its passkeys synced ones (the BE and BS flags).
 */
export const addVirtualAuthenticator = async (page: Page, options: { backupEligible?: boolean } = {}) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      ...(options.backupEligible ? { defaultBackupEligibility: true, defaultBackupState: true } : {}),
    },
  });
  const credentials = async () =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  type Credential = Awaited<ReturnType<typeof credentials>>[number];
  return {
    /** The passkeys it holds (ids and keys in base64), with their signature counters. */
    credentials,
    add: (credential: Credential) => cdp.send('WebAuthn.addCredential', { authenticatorId, credential }),
    remove: (credentialId: string) =>
      cdp.send('WebAuthn.removeCredential', { authenticatorId, credentialId }),
    clear: () => cdp.send('WebAuthn.clearCredentials', { authenticatorId }),
    /** Whether the person passes the fingerprint or PIN check it asks for. */
    setUserVerified: (isUserVerified: boolean) =>
      cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified }),
    /** Takes it out of the browser, with its passkeys. */
    detach: () => cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId }),
  };
};

export type VirtualAuthenticator = Awaited<ReturnType<typeof addVirtualAuthenticator>>;

/** A credential id of the protocol (base64) as WebAuthn's JSON and the service write it (base64url). */
export const base64url = (base64: string) => Buffer.from(base64, 'base64').toString('base64url');

/**
 * Makes the page's browser one whose autofill offers no passkeys (no conditional mediation).
 * Chromium's virtual authenticator answers an autofill request on its own, with the first passkey
 * it holds, where a person would have to pick it among the email field's suggestions; so a page
 * that should sign in through its button, or not at all, must not make that request.
 */
export const withoutPasskeyAutofill = (page: Page) =>
  page.addInitScript(() => {
    const holder = globalThis as unknown as { PublicKeyCredential?: object };
    if (holder.PublicKeyCredential)
      Object.defineProperty(holder.PublicKeyCredential, 'isConditionalMediationAvailable', {
        value: async () => false,
      });
  });
