import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import * as z from '../zod.js';

/**
 * A passkey answer as the hosted pages' script posts it: the JSON of @simplewebauthn/browser's
 * response in one form field. Read with bounds before any check, so a malformed or oversized
 * answer is a clear page rather than an error deep in a library.
 */

/** A credential id may reach 1,023 bytes (WebAuthn L2 5.8.3): 1,364 base64url characters. */
const credentialId = z.string().check(z.regex(/^[\w-]{16,1364}$/));
const base64url = (max: number) => z.string().check(z.regex(/^[\w-]*$/), z.maxLength(max));

const common = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  clientExtensionResults: z.optional(z.record(z.string(), z.unknown())),
  authenticatorAttachment: z.optional(z.enum(['platform', 'cross-platform'])),
};

const registrationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url(4096),
    attestationObject: base64url(16384),
    transports: z.optional(z.array(z.string().check(z.maxLength(32))).check(z.maxLength(8))),
  }),
});

const assertionSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    userHandle: z.optional(base64url(128)),
  }),
});

/** The challenge the browser signed, from clientDataJSON: the key its stored copy is found by. */
const challengeOf = (clientDataJSON: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (parsed as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && /^[\w-]{16,128}$/.test(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
};

const read = <T extends { response: { clientDataJSON: string } }>(
  schema: z.ZodMiniType<T>,
  form: URLSearchParams,
): { response: T; challenge: string } | undefined => {
  const field = form.get('credential') ?? '';
  if (!field || field.length > 32 * 1024) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(field);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return undefined;
  const challenge = challengeOf(parsed.data.response.clientDataJSON);
  return challenge ? { response: parsed.data, challenge } : undefined;
};

export const registrationOf = (form: URLSearchParams) =>
  read(registrationSchema, form) as { response: RegistrationResponseJSON; challenge: string } | undefined;

export const assertionOf = (form: URLSearchParams) =>
  read(assertionSchema, form) as { response: AuthenticationResponseJSON; challenge: string } | undefined;

/** A passkey's name as a person types it: one line, 1 to 64 characters. */
export const passkeyNameOf = (value: string | null): string | undefined => {
  const name = (value ?? '').replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ').trim();
  return name.length >= 1 && name.length <= 64 ? name : undefined;
};
