import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { describe, expect, it } from 'vitest';
import { type AssertionChanges, challengeOf, SoftAuthenticator } from '../support/soft-authenticator.js';

// The authenticator is only useful if @simplewebauthn/server, which the service verifies passkeys with,
// accepts what it answers and refuses each of its forgeries for the reason the forgery names.

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:3000';

const registrationOptions = () =>
  generateRegistrationOptions({
    rpName: 'IDP',
    rpID: RP_ID,
    userName: 'ada@example.com',
    userID: new TextEncoder().encode('user-ada'),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });

const verifyRegistration = (response: RegistrationResponseJSON, expectedChallenge: string) =>
  verifyRegistrationResponse({
    response,
    expectedChallenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    requireUserVerification: true,
  });

/** Registers a passkey on the authenticator and returns what the server keeps of it. */
const registered = async (authenticator: SoftAuthenticator): Promise<WebAuthnCredential> => {
  const options = await registrationOptions();
  const { registrationInfo } = await verifyRegistration(authenticator.register(options), options.challenge);
  if (!registrationInfo) throw new Error('registration did not verify');
  return registrationInfo.credential;
};

describe('SoftAuthenticator registration', () => {
  it('answers with a response the library verifies, device-bound unless backup-eligible', async () => {
    for (const backupEligible of [false, true]) {
      const authenticator = new SoftAuthenticator({ rpId: RP_ID, origin: ORIGIN, backupEligible });
      const options = await registrationOptions();
      const response = authenticator.register(options);
      expect(challengeOf(response)).toBe(options.challenge);
      expect(response.response).toMatchObject({ transports: ['internal'], publicKeyAlgorithm: -7 });
      expect(response.authenticatorAttachment).toBe('platform');

      const { verified, registrationInfo } = await verifyRegistration(response, options.challenge);
      expect(verified).toBe(true);
      expect(registrationInfo).toMatchObject({
        fmt: 'none',
        aaguid: '00000000-0000-0000-0000-000000000000',
        userVerified: true,
        credential: { id: response.id, counter: 0 },
        credentialDeviceType: backupEligible ? 'multiDevice' : 'singleDevice',
        credentialBackedUp: backupEligible,
      });
      expect(authenticator.credentials).toMatchObject([{ id: response.id, userHandle: options.user.id }]);
    }
  });

  it('refuses options for another RP ID or excluding a credential it holds', async () => {
    const authenticator = new SoftAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const options = await registrationOptions();
    expect(() => authenticator.register({ ...options, rp: { ...options.rp, id: 'example.com' } })).toThrow(
      /rp\.id/,
    );
    const { id } = authenticator.register(options);
    expect(() =>
      authenticator.register({ ...options, excludeCredentials: [{ id, type: 'public-key' }] }),
    ).toThrow(/excluded/);
  });
});

describe('SoftAuthenticator assertions', () => {
  /** An assertion for a fresh passkey; `changes` may name a second passkey on the same authenticator. */
  const signIn = async (changes: AssertionChanges | ((otherId: string) => AssertionChanges) = {}) => {
    const authenticator = new SoftAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const credential = await registered(authenticator);
    const other = await registered(authenticator);
    const options = await generateAuthenticationOptions({
      rpID: RP_ID,
      allowCredentials: [{ id: credential.id }],
      userVerification: 'required',
    });
    const response = authenticator.assert(
      options,
      typeof changes === 'function' ? changes(other.id) : changes,
    );
    const verify = () =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: options.challenge,
        expectedOrigin: ORIGIN,
        expectedRPID: RP_ID,
        credential,
        requireUserVerification: true,
      });
    return { response, options, verify };
  };

  it('answers with an assertion the library verifies (the positive control for the forgeries below)', async () => {
    const { response, options, verify } = await signIn();
    expect(challengeOf(response)).toBe(options.challenge);
    expect(response.response.userHandle).toBe(Buffer.from('user-ada').toString('base64url'));
    await expect(verify()).resolves.toMatchObject({
      verified: true,
      authenticationInfo: { newCounter: 1, userVerified: true, credentialDeviceType: 'singleDevice' },
    });
    expect((await signIn({ omitUserHandle: true })).response.response.userHandle).toBeUndefined();
  });

  it.each<[string, AssertionChanges, RegExp]>([
    ['another RP ID', { rpId: 'example.com' }, /RP ID/],
    ['another origin', { origin: 'https://evil.example' }, /origin/],
    ['another challenge', { challenge: 'bm90LXRoZS1jaGFsbGVuZ2U' }, /challenge/],
    ['no user verification', { userVerified: false }, /User verification required/],
    ['a registration type', { type: 'webauthn.create' }, /type/],
  ])('with %s is refused by the library', async (_, changes, reason) => {
    await expect((await signIn(changes)).verify()).rejects.toThrow(reason);
  });

  it("signed by another credential's key does not verify", async () => {
    await expect((await signIn((otherId) => ({ signWithKeyOf: otherId }))).verify()).resolves.toMatchObject({
      verified: false,
    });
  });

  it('reports a counter that grows with each assertion', async () => {
    const authenticator = new SoftAuthenticator({ rpId: RP_ID, origin: ORIGIN });
    const credential = await registered(authenticator);
    for (const expected of [1, 2]) {
      const options = await generateAuthenticationOptions({ rpID: RP_ID });
      const { authenticationInfo } = await verifyAuthenticationResponse({
        response: authenticator.assert(options),
        expectedChallenge: options.challenge,
        expectedOrigin: ORIGIN,
        expectedRPID: RP_ID,
        credential,
      });
      expect(authenticationInfo.newCounter).toBe(expected);
      credential.counter = authenticationInfo.newCounter;
    }
    expect(authenticator.credentials[0]?.counter).toBe(2);
  });
});
