import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software passkey authenticator for tests: it answers the options the service hands out the way a
 * platform authenticator behind @simplewebauthn/browser would (WebAuthn Level 2 byte layouts, attestation
 * 'none', ES256), so tests drive registration and sign-in over plain HTTP, and it forges assertions that
 * are wrong in exactly one named way for refusal tests.
 */

export interface SoftAuthenticatorOptions {
  rpId: string;
  origin: string;
  /** A synced passkey (BE and BS set) instead of a device-bound one. */
  backupEligible?: boolean;
}

export interface StoredCredential {
  /** base64url */
  id: string;
  privateKey: KeyObject;
  /** base64url of the registration options' user.id */
  userHandle: string;
  rpId: string;
  counter: number;
  backupEligible: boolean;
}

/** What a forged registration changes from a faithful one (the authenticator does not keep its credential). */
export interface RegistrationChanges {
  /** clientDataJSON.origin (default: options.origin) */
  origin?: string;
  /** UV flag (default true); UP always set */
  userVerified?: boolean;
  /** the RP ID whose SHA-256 goes into authenticatorData (default: the authenticator's) */
  rpId?: string;
  /** a public key of this algorithm instead of ES256 (ML-DSA-44: COSE -48, random key bytes) */
  algorithm?: 'ML-DSA-44';
  /** the credential id written into authenticatorData instead of the answer's id */
  authDataCredentialId?: Uint8Array;
}

/** What a forged assertion changes from a faithful one; each refusal test names exactly one. */
export interface AssertionChanges {
  /** the RP ID whose SHA-256 goes into authenticatorData (default: the credential's) */
  rpId?: string;
  /** clientDataJSON.origin (default: options.origin) */
  origin?: string;
  /** clientDataJSON.challenge (default: the options' challenge) */
  challenge?: string;
  /** clientDataJSON.type (default 'webauthn.get') */
  type?: string;
  /** UV flag (default true); UP always set */
  userVerified?: boolean;
  /** the signCount to report (default: stored counter + 1, and the stored counter moves to it; a given one leaves it) */
  counter?: number;
  /** which stored credential answers and signs (default: first allowed one in options.allowCredentials, else the most recently registered) */
  credentialId?: string;
  /** sign with this other stored credential's key while the answer still names the answering credential */
  signWithKeyOf?: string;
  omitUserHandle?: boolean;
  /** the user handle to answer instead of the credential's (base64url) */
  userHandle?: string;
  /** BE flag (default: the credential's, as registered) */
  backupEligible?: boolean;
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_BACKUP_ELIGIBLE = 0x08;
const FLAG_BACKED_UP = 0x10;
const FLAG_ATTESTED_CREDENTIAL_DATA = 0x40;
const COSE_ALG_ES256 = -7;
const COSE_ALG_ML_DSA_44 = -48;
const ZERO_AAGUID = new Uint8Array(16);

type CBORValue = Parameters<typeof isoCBOR.encode>[0];
/** Bytes on their own ArrayBuffer, as the helpers' base64url encoder takes them. */
type Bytes = Uint8Array<ArrayBuffer>;

export class SoftAuthenticator {
  readonly credentials: StoredCredential[] = [];
  private readonly rpId: string;
  private readonly origin: string;
  private readonly backupEligible: boolean;

  constructor(options: SoftAuthenticatorOptions) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.backupEligible = options.backupEligible ?? false;
  }

  /** Answers navigator.credentials.create() for these options, as startRegistration() returns it. */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    changes: RegistrationChanges = {},
  ): RegistrationResponseJSON {
    if ((options.rp.id ?? this.rpId) !== this.rpId) {
      throw new Error(`SoftAuthenticator: rp.id ${options.rp.id} is not ${this.rpId}`);
    }
    const offersES256 =
      options.pubKeyCredParams.length === 0 || options.pubKeyCredParams.some((p) => p.alg === COSE_ALG_ES256);
    if (!offersES256) throw new Error('SoftAuthenticator: the options do not offer ES256');
    const held = options.excludeCredentials?.find((excluded) => this.find(excluded.id));
    if (held) throw new Error(`SoftAuthenticator: already holds excluded credential ${held.id}`);

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const postQuantum = changes.algorithm === 'ML-DSA-44';
    const credentialId = new Uint8Array(randomBytes(32));
    const id = isoBase64URL.fromBuffer(credentialId);
    const writtenId = changes.authDataCredentialId ?? credentialId;
    const credentialIdLength = new Uint8Array(2);
    new DataView(credentialIdLength.buffer).setUint16(0, writtenId.length, false);
    const authenticatorData = concat(
      rpIdHash(changes.rpId ?? this.rpId),
      Uint8Array.of(this.flags(changes.userVerified ?? true) | FLAG_ATTESTED_CREDENTIAL_DATA),
      signCount(0),
      ZERO_AAGUID,
      credentialIdLength,
      writtenId,
      postQuantum ? coseAkpPublicKey() : coseEC2PublicKey(publicKey),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, CBORValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authenticatorData],
      ]),
    );
    const clientDataJSON = clientData('webauthn.create', options.challenge, changes.origin ?? this.origin);

    const forged = Object.values(changes).some((value) => value !== undefined);
    if (!forged) {
      this.credentials.push({
        id,
        privateKey,
        userHandle: options.user.id,
        rpId: this.rpId,
        counter: 0,
        backupEligible: this.backupEligible,
      });
    }
    return {
      id,
      rawId: id,
      response: {
        attestationObject: isoBase64URL.fromBuffer(attestationObject),
        clientDataJSON: isoBase64URL.fromBuffer(clientDataJSON),
        transports: ['internal'],
        publicKeyAlgorithm: postQuantum ? COSE_ALG_ML_DSA_44 : COSE_ALG_ES256,
        publicKey: isoBase64URL.fromBuffer(new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }))),
        authenticatorData: isoBase64URL.fromBuffer(authenticatorData),
      },
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers navigator.credentials.get() for these options, as startAuthentication() returns it. */
  assert(
    options: PublicKeyCredentialRequestOptionsJSON,
    changes: AssertionChanges = {},
  ): AuthenticationResponseJSON {
    if ((options.rpId ?? this.rpId) !== this.rpId) {
      throw new Error(`SoftAuthenticator: rpId ${options.rpId} is not ${this.rpId}`);
    }
    const credential = this.answering(options, changes.credentialId);
    const signer = changes.signWithKeyOf === undefined ? credential : this.held(changes.signWithKeyOf);
    let counter = changes.counter;
    if (counter === undefined) {
      credential.counter += 1;
      counter = credential.counter;
    }
    const authenticatorData = concat(
      rpIdHash(changes.rpId ?? credential.rpId),
      Uint8Array.of(
        this.flags(changes.userVerified ?? true, changes.backupEligible ?? credential.backupEligible),
      ),
      signCount(counter),
    );
    const clientDataJSON = clientData(
      changes.type ?? 'webauthn.get',
      changes.challenge ?? options.challenge,
      changes.origin ?? this.origin,
    );
    const signature = sign('sha256', concat(authenticatorData, sha256(clientDataJSON)), {
      key: signer.privateKey,
      dsaEncoding: 'der',
    });
    return {
      id: credential.id,
      rawId: credential.id,
      response: {
        authenticatorData: isoBase64URL.fromBuffer(authenticatorData),
        clientDataJSON: isoBase64URL.fromBuffer(clientDataJSON),
        signature: isoBase64URL.fromBuffer(new Uint8Array(signature)),
        userHandle: changes.omitUserHandle ? undefined : (changes.userHandle ?? credential.userHandle),
      },
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private flags(userVerified: boolean, backupEligible = this.backupEligible): number {
    let flags = FLAG_USER_PRESENT;
    if (userVerified) flags |= FLAG_USER_VERIFIED;
    // A synced passkey is eligible for backup and, once synced, backed up.
    if (backupEligible) flags |= FLAG_BACKUP_ELIGIBLE | FLAG_BACKED_UP;
    return flags;
  }

  private answering(options: PublicKeyCredentialRequestOptionsJSON, credentialId?: string): StoredCredential {
    if (credentialId !== undefined) return this.held(credentialId);
    const allowed = options.allowCredentials ?? [];
    if (allowed.length > 0) {
      for (const descriptor of allowed) {
        const credential = this.find(descriptor.id);
        if (credential) return credential;
      }
      throw new Error('SoftAuthenticator: holds none of the allowed credentials');
    }
    const latest = this.credentials.at(-1);
    if (!latest) throw new Error('SoftAuthenticator: holds no credential');
    return latest;
  }

  private find(id: string): StoredCredential | undefined {
    return this.credentials.find((credential) => credential.id === id);
  }

  private held(id: string): StoredCredential {
    const credential = this.find(id);
    if (!credential) throw new Error(`SoftAuthenticator: holds no credential ${id}`);
    return credential;
  }
}

/** The challenge a registration or authentication response answers. */
export const challengeOf = (response: RegistrationResponseJSON | AuthenticationResponseJSON): string => {
  const clientData: { challenge: string } = JSON.parse(
    isoBase64URL.toUTF8String(response.response.clientDataJSON),
  );
  return clientData.challenge;
};

/** Collected client data as browsers serialise it (same member order, crossOrigin false). */
const clientData = (type: string, challenge: string, origin: string): Bytes =>
  new TextEncoder().encode(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

const sha256 = (data: Uint8Array | string): Bytes =>
  new Uint8Array(createHash('sha256').update(data).digest());

const rpIdHash = (rpId: string): Bytes => sha256(rpId);

const signCount = (count: number): Bytes => {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, count, false);
  return bytes;
};

/** COSE_Key of an EC2 P-256 public key for ES256: {1: 2, 3: -7, -1: 1, -2: x, -3: y}. */
/** An ML-DSA-44 public key as COSE writes it (kty AKP): random bytes of its length, never used to verify. */
const coseAkpPublicKey = (): Bytes =>
  isoCBOR.encode(
    new Map<number, CBORValue>([
      [1, 7],
      [3, COSE_ALG_ML_DSA_44],
      [-1, new Uint8Array(randomBytes(1312))],
    ]),
  );

const coseEC2PublicKey = (publicKey: KeyObject): Bytes => {
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x || !jwk.y) throw new Error('SoftAuthenticator: not an EC public key');
  return isoCBOR.encode(
    new Map<number, CBORValue>([
      [1, 2],
      [3, COSE_ALG_ES256],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(jwk.x)],
      [-3, isoBase64URL.toBuffer(jwk.y)],
    ]),
  );
};

const concat = (...parts: Uint8Array[]): Bytes => {
  const joined = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
};
