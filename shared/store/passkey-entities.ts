import * as z from '../zod.js';
import { defineEntity } from './entity.js';
import { keys } from './keys.js';

/**
 * Passkeys (shared/store/passkeys.ts), apart from entities.ts so that only the functions that
 * enrol, check or manage them carry their declarations.
 */
export const PasskeyEntity = defineEntity({
  name: 'Passkey',
  key: ({
    organizationId,
    userId,
    credentialKey,
  }: {
    organizationId: string;
    userId: string;
    credentialKey: string;
  }) => keys.passkey(organizationId, userId, credentialKey),
  attributes: () =>
    z.object({
      /** SHA-256 of the credential id (hex): the passkey's id in the API and in keys. */
      credentialKey: z.string(),
      /** The WebAuthn credential id, base64url. */
      credentialId: z.string(),
      organizationId: z.string(),
      userId: z.string(),
      /** The COSE public key, base64url. Not a secret, and never answered. */
      publicKey: z.string(),
      signCount: z.number(),
      transports: z.optional(z.set(z.string())),
      backupEligible: z.boolean(),
      backedUp: z.boolean(),
      aaguid: z.string(),
      name: z.string(),
      createdAt: z.number(),
      lastUsedAt: z.optional(z.number()),
      /** When an assertion's counter went backwards: refused, and shown for the person to review. */
      flaggedAt: z.optional(z.number()),
    }),
});
export type PasskeyRecord = z.output<typeof PasskeyEntity.attributes>;

/** Whose a credential is, for a sign-in that names no one yet (a discoverable credential). */
export const PasskeyLookupEntity = defineEntity({
  name: 'Passkey',
  key: ({ credentialKey }: { credentialKey: string }) => keys.passkeyLookup(credentialKey),
  attributes: () => z.object({ organizationId: z.string(), userId: z.string() }),
});

/**
 * A WebAuthn challenge (keyed by its digest) and what it was handed out for: `binding` names the
 * ceremony and the browser (digest of purpose, pending request and binding cookie, or of the
 * session cookie), so a challenge answers nowhere else. Taken once; refused after `validUntil`.
 */
export const PasskeyChallengeEntity = defineEntity({
  name: 'Passkey challenge',
  key: ({ digest }: { digest: string }) => keys.passkeyChallenge(digest),
  attributes: () =>
    z.object({
      binding: z.string(),
      /** Epoch ms. */
      validUntil: z.number(),
      expiresAt: z.number(),
    }),
});
