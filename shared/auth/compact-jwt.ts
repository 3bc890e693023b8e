import { type KeyObject, sign } from 'node:crypto';

/**
 * The two JWT operations the functions need, on node:crypto: signing with ES256 (JWS, RFC 7515
 * compact form with the raw r||s signature of RFC 7518 3.4) and reading the payload of a token the
 * gateway has already verified. `jose` does both, at about a third of node:crypto's signing rate
 * and 40 KB more per bundle; it stays the verifier in tests.
 */
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export const signEs256 = (
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject,
) => {
  const signingInput = `${base64url({ alg: 'ES256', ...header })}.${base64url(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
};

/** The payload of a compact JWS, undefined when the token is not one. Verifies nothing. */
export const unverifiedPayload = (token: string): unknown => {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
};
