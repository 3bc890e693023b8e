import { sign } from 'node:crypto';
import type { SigningKey } from './signing-keys.js';

/**
 * Signing the service's own tokens (JWS, RFC 7515 compact form) on node:crypto: ES256 with the
 * raw r||s signature of RFC 7518 3.4, about three times `jose`'s signing rate (`npm run bench`,
 * tokens), and RS256 (RSASSA-PKCS1-v1_5, RFC 7518 3.3) for the ID tokens that ask for it.
 * Verifying is never done here: the service's own tokens go through aws-jwt-verify
 * (`own-tokens.ts`), an SSO upstream's through openid-client (`federation/upstream.ts`).
 */
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token signed with `signingKey`, whose algorithm the header names (`header` adds to it, or names another key id). */
export const signJws = (
  signingKey: SigningKey,
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
) => {
  const { algorithm, kid, key } = signingKey;
  const signingInput = `${base64url({ kid, ...header, alg: algorithm })}.${base64url(payload)}`;
  const signature =
    algorithm === 'ES256'
      ? sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(signingInput), key);
  return `${signingInput}.${signature.toString('base64url')}`;
};

/**
 * The payload of a token API Gateway's JWT authorizer has already verified (the request context
 * carries its claims; this reads the few it does not). Verifies nothing; undefined for a
 * malformed token.
 */
export const unverifiedPayload = (token: string): Record<string, unknown> | undefined => {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};
