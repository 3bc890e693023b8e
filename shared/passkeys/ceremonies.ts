import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { config } from '../config.js';
import type { PasskeyRecord } from '../store/passkey-entities.js';
import type { NewPasskey } from '../store/passkeys.js';

/**
 * The WebAuthn Level 2 ceremonies, through @simplewebauthn/server: what the service asks of an
 * authenticator (discoverable credential, user verification, no attestation), and the checks of
 * its answers. The relying party is the issuer: its host is the RP ID and its origin the only
 * origin accepted (exactly; `localhost` over http is a secure context browsers allow).
 *
 * The library and its ASN.1 parsers are about half of the passkeys function's code: the function
 * loads this module on the first ceremony (`ceremonies()` in options.ts), not at start, so the script, the
 * account page and the prompt's answers never wait for it.
 */

export const relyingParty = () => {
  const issuer = new URL(config().publicOrigin);
  return { id: issuer.hostname, origin: issuer.origin };
};

/** ES256, EdDSA, RS256: what authenticators in use offer, and the only keys registration takes. */
const SUPPORTED_ALGORITHMS = [-7, -8, -257];

type Credential = Pick<PasskeyRecord, 'credentialId' | 'transports'>;

const descriptor = (passkey: Credential) => ({
  id: passkey.credentialId,
  ...(passkey.transports ? { transports: [...passkey.transports] as AuthenticatorTransport[] } : {}),
});

/** Options for navigator.credentials.create(): the person's passkeys are excluded (no duplicate). */
export const registrationOptions = (
  person: { id: string; email: string; name: string },
  organizationName: string,
  existing: readonly Credential[],
): Promise<PublicKeyCredentialCreationOptionsJSON> =>
  generateRegistrationOptions({
    rpName: organizationName,
    rpID: relyingParty().id,
    // The user handle: the service's random id, never the email (WebAuthn L2 14.6.1).
    userID: new TextEncoder().encode(person.id),
    userName: person.email,
    userDisplayName: person.name || person.email,
    attestationType: 'none',
    excludeCredentials: existing.map(descriptor),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });

/** Options for navigator.credentials.get(): any discoverable passkey, or the person's own ones. */
export const authenticationOptions = (
  allowed?: readonly Credential[],
): Promise<PublicKeyCredentialRequestOptionsJSON> =>
  generateAuthenticationOptions({
    rpID: relyingParty().id,
    userVerification: 'required',
    ...(allowed ? { allowCredentials: allowed.map(descriptor) } : {}),
  });

/** Why an answer was refused, in the words of the audit record. */
export type CeremonyRefusal =
  | 'wrong origin'
  | 'wrong RP ID'
  | 'user verification missing'
  | 'backup eligibility changed'
  | 'passkey response not valid';

/** The library throws with a sentence; the record keeps one of a few reasons. */
const refusalOf = (error: unknown): CeremonyRefusal => {
  const message = error instanceof Error ? error.message : '';
  if (/origin/i.test(message)) return 'wrong origin';
  if (/RP ID/i.test(message)) return 'wrong RP ID';
  if (/user verification|could not be verified/i.test(message)) return 'user verification missing';
  return 'passkey response not valid';
};

export type Checked<T> = { verified: true; value: T } | { verified: false; reason: CeremonyRefusal };

/** Checks a registration against its challenge: what to store, or why not. */
export const checkRegistration = async (
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<Checked<Omit<NewPasskey, 'organizationId' | 'userId' | 'name'>>> => {
  const { id, origin } = relyingParty();
  try {
    const { verified, registrationInfo } = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: id,
      requireUserVerification: true,
      // WebAuthn L2 7.1 step 16: the key's algorithm is one the options offered (the library's
      // own default list is longer, and grows with what the runtime supports).
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    if (!verified) return { verified: false, reason: 'passkey response not valid' };
    const { credential, credentialDeviceType, credentialBackedUp, aaguid } = registrationInfo;
    // The id stored is the one in the authenticator data: it must be the answer's own id, which
    // the form bounds (1,023 bytes, WebAuthn L3 7.1 step 25); otherwise sign-in could never find it.
    if (credential.id !== response.id) return { verified: false, reason: 'passkey response not valid' };
    return {
      verified: true,
      value: {
        credentialId: credential.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        signCount: credential.counter,
        ...(credential.transports?.length ? { transports: new Set<string>(credential.transports) } : {}),
        backupEligible: credentialDeviceType === 'multiDevice',
        backedUp: credentialBackedUp,
        aaguid,
      },
    };
  } catch (error) {
    return { verified: false, reason: refusalOf(error) };
  }
};

/**
 * Checks an assertion against its challenge and the stored passkey: its signature, origin, RP ID,
 * user verification, and a backup eligibility that never changes (WebAuthn L3 7.2: a synced
 * passkey cannot become device-bound, nor the reverse, so a change means another authenticator or
 * a forgery, and would make `amr` say what is not). The counter is answered, not judged: the library is given 0 so that it
 * never refuses on the counter before checking the signature, and signCountVerdict judges it
 * after, so only a genuine assertion can flag a passkey.
 */
export const checkAssertion = async (
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: Pick<PasskeyRecord, 'credentialId' | 'publicKey' | 'transports' | 'backupEligible'>,
): Promise<Checked<{ signCount: number; backedUp: boolean }>> => {
  const { id, origin } = relyingParty();
  try {
    const { verified, authenticationInfo } = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: id,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: isoBase64URL.toBuffer(passkey.publicKey),
        counter: 0,
        ...(passkey.transports ? { transports: [...passkey.transports] as AuthenticatorTransport[] } : {}),
      },
    });
    if (!verified || !authenticationInfo.userVerified)
      return {
        verified: false,
        reason: verified ? 'user verification missing' : 'passkey response not valid',
      };
    if ((authenticationInfo.credentialDeviceType === 'multiDevice') !== passkey.backupEligible)
      return { verified: false, reason: 'backup eligibility changed' };
    return {
      verified: true,
      value: { signCount: authenticationInfo.newCounter, backedUp: authenticationInfo.credentialBackedUp },
    };
  } catch (error) {
    return { verified: false, reason: refusalOf(error) };
  }
};
