import { randomBytes } from 'node:crypto';
import { SettingsService, verifyRegistrationResponse } from '@simplewebauthn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { checkRegistration, registrationOptions } from '../../shared/passkeys/ceremonies.js';
import { LOCAL_RP } from '../support/passkeys.js';
import { type RegistrationChanges, SoftAuthenticator } from '../support/soft-authenticator.js';

/**
 * What a registration must be beyond what @simplewebauthn/server checks by default: each refusal
 * starts from a registration that is accepted and changes one thing, and shows that the library
 * left to its defaults would take it.
 */

const person = { id: 'user-1', email: 'ada@example.com', name: 'Ada' };

/**
 * A runtime whose WebCrypto has ML-DSA (the library asks once and keeps the answer): there the
 * library's default algorithms include ML-DSA-44, which the options never offer.
 */
const settings = SettingsService as unknown as { _runtimeSupportsPQC?: boolean };
const runtimeAnswer = settings._runtimeSupportsPQC;
afterEach(() => {
  settings._runtimeSupportsPQC = runtimeAnswer;
});

const registration = async (changes: RegistrationChanges = {}) => {
  const options = await registrationOptions(person, 'Org', []);
  return { options, response: new SoftAuthenticator(LOCAL_RP).register(options, changes) };
};

const libraryDefaults = async (changes: RegistrationChanges) => {
  const { options, response } = await registration(changes);
  const { verified } = await verifyRegistrationResponse({
    response,
    expectedChallenge: options.challenge,
    expectedOrigin: LOCAL_RP.origin,
    expectedRPID: LOCAL_RP.rpId,
  });
  return verified;
};

describe('checkRegistration', () => {
  it('takes a faithful registration, storing the id it was answered with', async () => {
    const { options, response } = await registration();
    const checked = await checkRegistration(response, options.challenge);
    expect(checked.verified && checked.value.credentialId).toBe(response.id);
  });

  it.each([
    ['a key of an algorithm the options did not offer (ML-DSA-44)', { algorithm: 'ML-DSA-44' as const }],
    [
      'an answer whose id is not the credential id in its authenticator data (2,000 bytes there)',
      { authDataCredentialId: new Uint8Array(randomBytes(2000)) },
    ],
  ])('refuses %s, which the library left to its defaults takes', async (_, changes) => {
    settings._runtimeSupportsPQC = true;
    expect(await libraryDefaults(changes)).toBe(true);
    const { options, response } = await registration(changes);
    expect(await checkRegistration(response, options.challenge)).toEqual({
      verified: false,
      reason: 'passkey response not valid',
    });
  });
});
