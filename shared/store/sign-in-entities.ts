import * as z from '../zod.js';
import { defineEntity, stringSet } from './entity.js';
import { keys } from './keys.js';

/**
 * The short-lived state of people signing in, each item in a partition of its own and deleted by
 * DynamoDB's TTL (`expiresAt`, epoch seconds). Lifetimes are checked on read as well: TTL deletes
 * within hours, not at the second.
 */

const amr = () => z.array(z.string());

/** An authorization request waiting for the person to sign in, bound to the browser that made it. */
export const AuthorizationRequestEntity = defineEntity({
  name: 'Authorization request',
  key: ({ id }: { id: string }) => keys.authorizationRequest(id),
  attributes: () =>
    z.object({
      id: z.string(),
      clientId: z.string(),
      organizationId: z.string(),
      redirectUri: z.string(),
      scope: z.string(),
      state: z.optional(z.string()),
      nonce: z.optional(z.string()),
      codeChallenge: z.string(),
      prompt: z.optional(z.enum(['none', 'login'])),
      /** Seconds since the person last authenticated, at most (`max_age`). */
      maxAge: z.optional(z.number()),
      /** Who an ID token hint of the request named: nobody else may finish it (sign-in-steps.ts). */
      hintedUserId: z.optional(z.string()),
      /** Digest of the browser's binding cookie: only that browser may complete it (login CSRF). */
      browserDigest: z.string(),
      /** Set once the person proved who they are, while further steps (MFA, consent) remain. */
      userId: z.optional(z.string()),
      authTime: z.optional(z.number()),
      amr: z.optional(amr()),
      /** The SSO provider (its client id) a federated person signed in through, for the records. */
      provider: z.optional(z.string()),
      /** When that provider was bound to the organization: a provider bound anew is another one. */
      providerBoundAt: z.optional(z.number()),
      /** Epoch ms: the absolute end of the session the person came with, which a new one keeps. */
      sessionEndsAt: z.optional(z.number()),
      /** The key's digest of that session: once it ended (a sign-out), no step of this request finishes. */
      sessionDigest: z.optional(z.string()),
      /** A TOTP secret shown for enrolment, stored on the user once confirmed with a code. */
      totpEnrolment: z.optional(z.string()),
      /** The sign-in page's script found WebAuthn in the browser: a passkey may be offered. */
      passkeyCapable: z.optional(z.boolean()),
      /** The person was offered to add a passkey in this sign-in (asked once). */
      passkeyOffered: z.optional(z.boolean()),
      createdAt: z.number(),
      expiresAt: z.number(),
    }),
});
export type AuthorizationRequestRecord = z.output<typeof AuthorizationRequestEntity.attributes>;

/** An authorization code (keyed by its digest): single use, bound to client, redirect URI and PKCE. */
export const AuthorizationCodeEntity = defineEntity({
  name: 'Authorization code',
  key: ({ digest }: { digest: string }) => keys.authorizationCode(digest),
  attributes: () =>
    z.object({
      clientId: z.string(),
      organizationId: z.string(),
      userId: z.string(),
      redirectUri: z.string(),
      codeChallenge: z.string(),
      scope: z.string(),
      nonce: z.optional(z.string()),
      /** Epoch ms of the authentication. */
      authTime: z.number(),
      amr: amr(),
      /** Epoch ms after which the code is refused. */
      validUntil: z.number(),
      /** Set by the one redemption: the refresh token family it started (revoked on a replay). */
      redeemedFamily: z.optional(z.string()),
      /** The browser session the code came from (its key's digest): signing out ends what it started. */
      sessionDigest: z.optional(z.string()),
      /** The SSO provider (its client id) that signed the person in, for a federated sign-in. */
      provider: z.optional(z.string()),
      /** When that provider was bound to the organization (none on sign-ins from before it was kept). */
      providerBoundAt: z.optional(z.number()),
      expiresAt: z.number(),
    }),
});
export type AuthorizationCodeRecord = z.output<typeof AuthorizationCodeEntity.attributes>;

/** A browser session at the IdP (keyed by the digest of its cookie). */
export const SessionEntity = defineEntity({
  name: 'Session',
  key: ({ digest }: { digest: string }) => keys.session(digest),
  attributes: () =>
    z.object({
      organizationId: z.string(),
      userId: z.string(),
      /** Epoch ms of the authentication. */
      authTime: z.number(),
      amr: amr(),
      /** The SSO provider (its client id) that signed the person in, for a federated session. */
      provider: z.optional(z.string()),
      /** When that provider was bound to the organization (none on sign-ins from before it was kept). */
      providerBoundAt: z.optional(z.number()),
      /** Epoch ms: the session ends then whatever its use (absolute lifetime). */
      endsAt: z.number(),
      /** Epoch seconds: idle expiry, pushed forward by use (and DynamoDB's TTL). */
      expiresAt: z.number(),
      /** The refresh token families begun in this session without offline_access: they end with it. */
      families: stringSet,
    }),
});
export type SessionRecord = z.output<typeof SessionEntity.attributes>;

/** A refresh token (keyed by its digest); `rotated` once it was exchanged for its successor. */
export const RefreshTokenEntity = defineEntity({
  name: 'Refresh token',
  key: ({ digest }: { digest: string }) => keys.refreshToken(digest),
  attributes: () =>
    z.object({
      familyId: z.string(),
      clientId: z.string(),
      organizationId: z.string(),
      userId: z.string(),
      scope: z.string(),
      /** Epoch ms of the authentication. */
      authTime: z.number(),
      amr: amr(),
      /** The SSO provider (its client id) that signed the person in, for a federated sign-in. */
      provider: z.optional(z.string()),
      /** When that provider was bound to the organization (none on sign-ins from before it was kept). */
      providerBoundAt: z.optional(z.number()),
      rotated: z.optional(z.boolean()),
      /**
       * Epoch ms: its family's absolute end, so a rotation reads only the token to give the
       * successor its expiry. Missing on tokens written before it was kept.
       */
      familyEndsAt: z.optional(z.number()),
      /** Epoch seconds: sliding expiry (and DynamoDB's TTL). */
      expiresAt: z.number(),
    }),
});
export type RefreshTokenRecord = z.output<typeof RefreshTokenEntity.attributes>;

/** What every refresh token of one sign-in shares: its absolute end, and revocation. */
export const RefreshFamilyEntity = defineEntity({
  name: 'Refresh token family',
  key: ({ id }: { id: string }) => keys.refreshFamily(id),
  attributes: () =>
    z.object({
      id: z.string(),
      clientId: z.string(),
      organizationId: z.string(),
      userId: z.string(),
      revoked: z.optional(z.boolean()),
      /** Epoch ms: no token of the family is honoured after it (absolute lifetime). */
      endsAt: z.number(),
      expiresAt: z.number(),
    }),
});

/** Consecutive failed sign-ins of one email in one organization, and until when it is locked. */
export const SignInFailuresEntity = defineEntity({
  name: 'Sign-in failures',
  key: ({ organizationId, email }: { organizationId: string; email: string }) =>
    keys.signInFailures(organizationId, email),
  attributes: () =>
    z.object({
      failures: z.number(),
      /** Epoch ms; 0 while not locked. */
      lockedUntil: z.number(),
      expiresAt: z.number(),
      /** Epoch ms: a credential check of this email is under way until then (reserveCredentialCheck). */
      checkingUntil: z.optional(z.number()),
    }),
});

/** Sign-in attempts from one client IP address in one calendar minute. */
export const SignInAttemptsEntity = defineEntity({
  name: 'Sign-in attempts',
  key: ({ address, epochMinute }: { address: string; epochMinute: number }) =>
    keys.signInAttempts(address, epochMinute),
  attributes: () => z.object({ attempts: z.number(), expiresAt: z.number() }),
});

/**
 * A sign-in sent to an SSO provider's upstream, keyed by the digest of the `state` it carries:
 * the upstream's redirect back finds it, once. The PKCE verifier and nonce stay here, never in
 * the browser.
 */
export const FederationStateEntity = defineEntity({
  name: 'Federation state',
  key: ({ digest }: { digest: string }) => keys.federationState(digest),
  attributes: () =>
    z.object({
      requestId: z.string(),
      /** The pending request's browser binding digest: only that browser takes the state. */
      browserDigest: z.string(),
      providerClientId: z.string(),
      /** The upstream the person was sent to: the answer must come from it. */
      issuer: z.string(),
      nonce: z.string(),
      codeVerifier: z.string(),
      /**
       * Sent back upstream to sign in again (`max_age=0`): its last sign-in there predated a
       * change that ended this account's earlier sign-ins here.
       */
      fresh: z.optional(z.boolean()),
      createdAt: z.number(),
      expiresAt: z.number(),
    }),
});
export type FederationStateRecord = z.output<typeof FederationStateEntity.attributes>;
