import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, submitSignIn } from '../../shared/auth/browser-sign-in.js';
import { submitTotp } from '../../shared/auth/sign-in-step-forms.js';
import { showTotpEnrolment } from '../../shared/auth/totp-enrolment.js';
import { addFromAccount, showAccount } from '../../shared/passkeys/account.js';
import { passkeyOptions } from '../../shared/passkeys/options.js';
import { submitPasskeySignIn } from '../../shared/passkeys/passkey-sign-in.js';
import { updateOrganizationSettings } from '../../shared/store/organization-repository.js';
import { listPasskeys } from '../../shared/store/passkeys.js';
import { endSession } from '../../shared/store/sign-in-state.js';
import { updateUserAttributes } from '../../shared/store/user-repository.js';
import { hiddenField } from '../support/browser-session.js';
import { useDatabase } from '../support/database.js';
import {
  alertOf,
  authorizationQuery,
  locationOf,
  PASSWORD,
  type Page,
  PagesBrowser,
  personWithPassword,
  requestIdOf,
  signInSetup,
  textOf,
  totpCodeAt,
} from '../support/hosted-pages.js';
import { LOCAL_RP, storedPasskey } from '../support/passkeys.js';
import { SoftAuthenticator } from '../support/soft-authenticator.js';

/**
 * Passkeys at the steps after a password: the offer, the second factor, the account page's
 * banner, and a credential id chosen by an attacker. Each refusal starts from a positive control
 * and changes only what the defence checks.
 */

useDatabase();

let setup: Awaited<ReturnType<typeof signInSetup>>;
beforeAll(async () => {
  setup = await signInSetup();
});

const json = (page: Page) => JSON.parse(textOf(page));
const csrfOf = (page: Page) => hiddenField(textOf(page), 'csrf') ?? '';
const EXPIRED =
  'This sign-in page has expired or was opened in another browser. Go back to the application and sign in again.';

const signedIn = async (where = setup) => {
  const user = await personWithPassword(where.organization.id, PASSWORD);
  const browser = new PagesBrowser();
  const request = requestIdOf(await browser.get(authorize, authorizationQuery(where.application.id)));
  const done = await browser.post(submitSignIn, { request, email: user.email, password: PASSWORD });
  expect(done.statusCode).toBe(303);
  return { user, browser };
};

describe('the account page', () => {
  it('positive control: a change it names says what was done', async () => {
    const { browser } = await signedIn();
    const page = await browser.get(showAccount, { done: 'removed' });
    expect(textOf(page)).toContain('The passkey is removed');
  });

  it.each(['constructor', 'toString', '__proto__'])(
    'shows no "done" banner for ?done=%s (a name of Object.prototype, not of DONE)',
    async (done) => {
      const { browser } = await signedIn();
      const page = await browser.get(showAccount, { done });
      expect(page.statusCode).toBe(200);
      // DONE[done] finds Object.prototype's members: the banner shows "function Object() { [native code] }".
      expect(textOf(page)).not.toContain('role="status"');
    },
  );

  it('positive control: a faithful registration is added (303)', async () => {
    const { user, browser } = await signedIn();
    const csrf = csrfOf(await browser.get(showAccount, {}));
    const options = json(await browser.post(passkeyOptions, { purpose: 'account', csrf }));
    const credential = JSON.stringify(new SoftAuthenticator(LOCAL_RP).register(options));
    expect((await browser.post(addFromAccount, { csrf, credential })).statusCode).toBe(303);
    expect(await listPasskeys(setup.organization.id, user.id)).toHaveLength(1);
  });
});

describe('a passkey as the second factor', () => {
  it('refused on the TOTP enrolment page, shows the enrolment page again, not a code page for an app never set up', async () => {
    const mfa = await signInSetup({ mfaEnabled: true });
    const user = await personWithPassword(mfa.organization.id);
    const { authenticator } = await storedPasskey(user);
    const browser = new PagesBrowser();
    const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
    const afterPassword = await browser.post(submitSignIn, {
      request,
      email: user.email,
      password: PASSWORD,
    });
    // No TOTP secret: the person is sent to enrol (the enrolment page offers "Use a passkey instead").
    expect(afterPassword.headers?.location).toMatch(/^\/signin\/enrol\?/);
    const options: PublicKeyCredentialRequestOptionsJSON = json(
      await browser.post(passkeyOptions, { purpose: 'sign-in', request }),
    );
    // An assertion that fails in one way (user verification missing): back to the enrolment
    // page, saying so, not to a code page for an app the person never set up.
    const refused = await browser.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(authenticator.assert(options, { userVerified: false })),
    });
    expect(refused.statusCode).toBe(303);
    const again = locationOf(refused);
    expect(again.pathname).toBe('/signin/enrol');
    const page = await browser.get(showTotpEnrolment, Object.fromEntries(again.searchParams));
    expect(alertOf(page)).toContain('The passkey could not be used');
    expect(textOf(page)).not.toContain('Type the 6-digit code from your authenticator app');
    // The same passkey, with user verification, completes the sign-in.
    const retried: PublicKeyCredentialRequestOptionsJSON = json(
      await browser.post(passkeyOptions, { purpose: 'sign-in', request }),
    );
    const done = await browser.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(authenticator.assert(retried)),
    });
    expect(locationOf(done).searchParams.get('code')).toBeTruthy();
  });

  it('finishes no step of a session the person signed out of since (docs/sign-in.md "A step left open, then a sign-out")', async () => {
    const org = await signInSetup();
    const user = await personWithPassword(org.organization.id);
    const secret = 'JBSWY3DPEHPK3PXP';
    await updateUserAttributes(org.organization.id, user.id, { totpSecret: secret });
    const { authenticator } = await storedPasskey(user);

    /** Signs in with the password (no MFA yet), then the organization asks for MFA. */
    const parkedAtSecondFactor = async () => {
      const browser = new PagesBrowser();
      const first = requestIdOf(await browser.get(authorize, authorizationQuery(org.application.id)));
      expect(
        (await browser.post(submitSignIn, { request: first, email: user.email, password: PASSWORD }))
          .statusCode,
      ).toBe(303);
      await updateOrganizationSettings(org.organization.id, { mfaEnabled: true });
      const asked = await browser.get(authorize, authorizationQuery(org.application.id));
      expect(textOf(asked)).toContain('name="code"');
      const request = requestIdOf(asked);
      const options: PublicKeyCredentialRequestOptionsJSON = json(
        await browser.post(passkeyOptions, { purpose: 'sign-in', request }),
      );
      return { browser, request, options };
    };
    const signOut = async (browser: PagesBrowser) =>
      expect(await endSession(browser.cookies.get('idp-session'))).toBeDefined();

    // The defence, for a code: after the sign-out the step is "start again".
    const withCode = await parkedAtSecondFactor();
    await signOut(withCode.browser);
    const code = await withCode.browser.post(submitTotp, {
      request: withCode.request,
      code: totpCodeAt(secret),
    });
    expect(alertOf(code)).toBe(EXPIRED);
    await updateOrganizationSettings(org.organization.id, { mfaEnabled: false });

    // The same step finished with a passkey instead of the code.
    const withPasskey = await parkedAtSecondFactor();
    await signOut(withPasskey.browser);
    const page = await withPasskey.browser.post(submitPasskeySignIn, {
      request: withPasskey.request,
      credential: JSON.stringify(authenticator.assert(withPasskey.options)),
    });
    expect(page.statusCode).toBe(400);
    expect(alertOf(page)).toBe(EXPIRED);
  });
});

describe('a credential id chosen by an attacker (attestation none)', () => {
  it("cannot take or block a victim's credential in another organization (sound: refused, nothing written)", async () => {
    const other = await signInSetup();
    const victim = await personWithPassword(setup.organization.id);
    const { authenticator: victimDevice } = await storedPasskey(victim);
    const victimId = victimDevice.credentials[0]?.id as string;

    const { user: attacker, browser } = await signedIn(other);
    const addWithId = async (id?: string) => {
      const csrf = csrfOf(await browser.get(showAccount, {}));
      const options = json(await browser.post(passkeyOptions, { purpose: 'account', csrf }));
      const chosen = id ?? Buffer.from(`chosen-${Date.now()}-${Math.random()}`).toString('base64url');
      const answer = new SoftAuthenticator(LOCAL_RP).register(options, {
        authDataCredentialId: new Uint8Array(Buffer.from(chosen, 'base64url')),
      });
      return browser.post(addFromAccount, {
        csrf,
        credential: JSON.stringify({ ...answer, id: chosen, rawId: chosen }),
      });
    };
    // Positive control: an id of the attacker's choosing is taken (attestation none proves nothing).
    expect((await addWithId()).statusCode).toBe(303);
    const refused = await addWithId(victimId);
    expect(refused.statusCode).toBe(400);
    expect(alertOf(refused)).toContain('registered already');
    expect(await listPasskeys(other.organization.id, attacker.id)).toHaveLength(1);
    // The victim still signs in with it.
    const signIn = new PagesBrowser();
    const request = requestIdOf(await signIn.get(authorize, authorizationQuery(setup.application.id)));
    const options = json(await signIn.post(passkeyOptions, { purpose: 'sign-in', request }));
    const page = await signIn.post(submitPasskeySignIn, {
      request,
      credential: JSON.stringify(victimDevice.assert(options)),
    });
    expect(locationOf(page).searchParams.get('code')).toBeTruthy();
  });
});

describe('the offer after a password, left open while the organization began to ask for MFA', () => {
  it('adds no passkey on the password alone (as the account page asks for two-step verification)', async () => {
    const { submitPromptPasskey } = await import('../../shared/passkeys/enrolment.js');
    const org = await signInSetup();
    const offered = async () => {
      const user = await personWithPassword(org.organization.id);
      const browser = new PagesBrowser();
      const request = requestIdOf(await browser.get(authorize, authorizationQuery(org.application.id)));
      const page = await browser.post(submitSignIn, {
        request,
        email: user.email,
        password: PASSWORD,
        passkeys: 'available',
      });
      expect(textOf(page)).toContain('data-passkey="enrol"');
      const add = async () => {
        const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request }));
        const credential = JSON.stringify(new SoftAuthenticator(LOCAL_RP).register(options));
        return browser.post(submitPromptPasskey, { request, credential });
      };
      return { user, add };
    };
    // Positive control: without MFA, the offer takes the passkey.
    const control = await offered();
    expect((await control.add()).statusCode).toBe(303);
    expect(await listPasskeys(org.organization.id, control.user.id)).toHaveLength(1);

    const { user, add } = await offered();
    await updateOrganizationSettings(org.organization.id, { mfaEnabled: true });
    const page = await add();
    // It would be, from now on, a whole multi-factor sign-in (amr mfa) made of a password.
    expect(await listPasskeys(org.organization.id, user.id)).toHaveLength(0);
    expect(page.statusCode).toBe(403);
    expect(alertOf(page)).toBe('To add a passkey, sign in again with two-step verification.');
  });
});

describe('the offer after a password, in an organization that asks for MFA', () => {
  it('takes no passkey once the sign-in it was offered on holds a password only again', async () => {
    const { submitPromptPasskey } = await import('../../shared/passkeys/enrolment.js');
    const { submitContinue } = await import('../../shared/auth/sign-in-step-forms.js');
    const { pendingTotpSecret } = await import('../support/hosted-pages.js');
    const { getItem } = await import('../support/records.js');
    const { keys } = await import('../../shared/store/keys.js');
    const mfa = await signInSetup({ mfaEnabled: true });
    /** A person past their password and a new authenticator app's code, at the offer. */
    const atOffer = async () => {
      const user = await personWithPassword(mfa.organization.id);
      const browser = new PagesBrowser();
      const request = requestIdOf(await browser.get(authorize, authorizationQuery(mfa.application.id)));
      const password = () =>
        browser.post(submitSignIn, { request, email: user.email, password: PASSWORD, passkeys: 'available' });
      await password();
      const secret = await pendingTotpSecret(request);
      await browser.post(submitTotp, { request, code: totpCodeAt(secret) });
      // Past the recovery codes: the offer.
      expect(textOf(await browser.post(submitContinue, { request }))).toContain('data-passkey="enrol"');
      const add = async () => {
        const options = json(await browser.post(passkeyOptions, { purpose: 'enrol', request }));
        const credential = JSON.stringify(new SoftAuthenticator(LOCAL_RP).register(options));
        return browser.post(submitPromptPasskey, { request, credential });
      };
      return { user, request, password, add };
    };
    // Positive control: the offer takes the passkey.
    const control = await atOffer();
    expect((await control.add()).statusCode).toBe(303);
    expect(await listPasskeys(mfa.organization.id, control.user.id)).toHaveLength(1);
    // The password again on the same sign-in (someone who knows it, not the codes): the code is
    // asked, and the offer left open takes no passkey on the password alone.
    const { user, request, password, add } = await atOffer();
    expect(textOf(await password())).toContain('name="code"');
    expect((await getItem(keys.authorizationRequest(request)))?.amr).toEqual(['pwd']);
    expect((await add()).statusCode).toBe(403);
    expect(await listPasskeys(mfa.organization.id, user.id)).toHaveLength(0);
  });
});
