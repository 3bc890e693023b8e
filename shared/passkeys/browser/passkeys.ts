import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  WebAuthnError,
} from '@simplewebauthn/browser';

/**
 * The hosted pages' only script (served as /signin/passkeys.js under `script-src 'self'`): it
 * shows the passkey forms (hidden for browsers without WebAuthn or without scripts, so the pages
 * work without it) and runs their ceremony. A form `data-passkey="<purpose>"` asks
 * /signin/passkeys/options for options with its hidden fields, has the browser create or use a
 * passkey, puts the answer in its `credential` field and posts itself.
 */

type Purpose = 'sign-in' | 'enrol' | 'account';

const message = document.querySelector<HTMLElement>('[data-passkey-message]');
const show = (text: string) => {
  if (!message) return;
  message.textContent = text;
  message.hidden = false;
};

const fieldsOf = (form: HTMLFormElement, purpose: Purpose) => {
  const body = new URLSearchParams({ purpose });
  for (const input of form.querySelectorAll<HTMLInputElement>('input[type="hidden"]'))
    if (input.name !== 'credential') body.set(input.name, input.value);
  return body;
};

const optionsFor = async (form: HTMLFormElement, purpose: Purpose) => {
  const response = await fetch('/signin/passkeys/options', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fieldsOf(form, purpose),
    credentials: 'same-origin',
  });
  const answer = (await response.json()) as { message?: string };
  if (!response.ok) throw new Error(answer.message ?? 'Passkeys are not available now.');
  return answer;
};

const post = (form: HTMLFormElement, credential: unknown) => {
  const field = form.querySelector<HTMLInputElement>('input[name="credential"]');
  if (!field) return;
  field.value = JSON.stringify(credential);
  form.submit();
};

/** What the person is told when the browser's ceremony ends without an answer. */
const explain = (error: unknown) => {
  if (error instanceof WebAuthnError && error.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')
    return 'This passkey is added already.';
  if (error instanceof Error && error.name === 'NotAllowedError')
    return 'The passkey request was cancelled or timed out. Try again, or continue another way.';
  return error instanceof Error && error.message ? error.message : 'The passkey could not be used.';
};

const run = async (form: HTMLFormElement, purpose: Purpose) => {
  try {
    const optionsJSON = (await optionsFor(form, purpose)) as never;
    post(
      form,
      purpose === 'sign-in'
        ? await startAuthentication({ optionsJSON })
        : await startRegistration({ optionsJSON }),
    );
  } catch (error) {
    show(explain(error));
  }
};

/** Autofill (conditional mediation): the email field offers the person's passkeys. */
const offerInAutofill = async (form: HTMLFormElement) => {
  if (!(await browserSupportsWebAuthnAutofill())) return;
  try {
    const optionsJSON = (await optionsFor(form, 'sign-in')) as never;
    post(form, await startAuthentication({ optionsJSON, useBrowserAutofill: true }));
  } catch {
    // Cancelled, or replaced by the button's own request: the page stays as it is.
  }
};

if (browserSupportsWebAuthn()) {
  // Tells the password form this browser can make a passkey, so one may be offered after it.
  for (const field of document.querySelectorAll<HTMLInputElement>('input[data-passkey-capable]'))
    field.value = 'available';
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-passkey]')) {
    const purpose = form.dataset.passkey as Purpose;
    form.hidden = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void run(form, purpose);
    });
    if (form.dataset.autofill === 'true') void offerInAutofill(form);
  }
}
