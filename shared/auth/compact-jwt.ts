import { type KeyObject, sign, verify } from 'node:crypto';

/**
 * The two JWT operations the functions need, on node:crypto: signing with ES256 (JWS, RFC 7515
 * compact form with the raw r||s signature of RFC 7518 3.4) and reading the payload of a token the
 * gateway has already verified, and verifying one of its own (userinfo, logout hints). `jose` does these, at about a third of node:crypto's signing rate
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

/** A JSON object encoded as one base64url part of a JWS, or undefined. */
const decodedObject = (part: string | undefined): Record<string, unknown> | undefined => {
  if (!part) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/** The payload of a compact JWS, undefined when the token is not one. Verifies nothing. */
export const unverifiedPayload = (token: string): Record<string, unknown> | undefined => {
  const parts = token.split('.');
  return parts.length === 3 ? decodedObject(parts[1]) : undefined;
};

/**
 * The header and payload of a compact ES256 JWS whose signature one of `keys` (by `kid`)
 * verifies; undefined otherwise. Claims are the caller's to check.
 */
export const verifiedEs256 = (
  token: string,
  keyOf: (kid: string) => KeyObject | undefined,
): { header: Record<string, unknown>; payload: Record<string, unknown> } | undefined => {
  const [encodedHeader, encodedPayload, signature, ...rest] = token.split('.');
  if (!encodedHeader || !encodedPayload || !signature || rest.length > 0) return undefined;
  const header = decodedObject(encodedHeader);
  if (header?.alg !== 'ES256' || typeof header.kid !== 'string') return undefined;
  const key = keyOf(header.kid);
  if (!key) return undefined;
  const valid = verify(
    'sha256',
    Buffer.from(`${encodedHeader}.${encodedPayload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  const payload = valid ? decodedObject(encodedPayload) : undefined;
  return payload ? { header, payload } : undefined;
};
