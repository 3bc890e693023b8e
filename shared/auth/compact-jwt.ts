import { type KeyObject, sign, verify } from 'node:crypto';

/**
 * The JWT operations the functions need, on node:crypto: signing with ES256 (JWS, RFC 7515
 * compact form with the raw r||s signature of RFC 7518 3.4), reading the payload of a token the
 * gateway has already verified, and verifying an SSO upstream's ID token (RSA, RSA-PSS, ECDSA,
 * EdDSA). `jose` does these at about a third of node:crypto's signing rate and 18 to 40 KB more
 * per bundle; it stays the verifier in tests. The service's own tokens are verified with
 * aws-jwt-verify (`own-tokens.ts`).
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

/** How to verify one JWS algorithm (RFC 7518 section 3) with node:crypto. */
export interface JwsAlgorithm {
  hash: string | null;
  /** `KeyObject.asymmetricKeyType` values its keys may have. */
  keyTypes: readonly string[];
  options?: object;
}

export const ES256: JwsAlgorithm = {
  hash: 'sha256',
  keyTypes: ['ec'],
  options: { dsaEncoding: 'ieee-p1363' },
};

/** The protected header of a compact JWS (unverified: only to pick the key). */
export const jwsHeader = (token: string): Record<string, unknown> | undefined => {
  const parts = token.split('.');
  return parts.length === 3 ? decodedObject(parts[0]) : undefined;
};

/**
 * The header and payload of a compact JWS whose signature `key` verifies with the algorithm the
 * header names, which must be one of `algorithms` (never `none`); undefined otherwise. Claims are
 * the caller's to check.
 */
export const verifiedJws = (
  token: string,
  key: KeyObject,
  algorithms: Readonly<Record<string, JwsAlgorithm>>,
): { header: Record<string, unknown>; payload: Record<string, unknown> } | undefined => {
  const [encodedHeader, encodedPayload, signature, ...rest] = token.split('.');
  if (!encodedHeader || !encodedPayload || !signature || rest.length > 0) return undefined;
  const header = decodedObject(encodedHeader);
  const alg =
    typeof header?.alg === 'string' && Object.hasOwn(algorithms, header.alg)
      ? algorithms[header.alg]
      : undefined;
  if (!header || !alg?.keyTypes.includes(key.asymmetricKeyType ?? '')) return undefined;
  let valid = false;
  try {
    valid = verify(
      alg.hash,
      Buffer.from(`${encodedHeader}.${encodedPayload}`),
      { key, ...alg.options },
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    // A key that cannot take this signature (wrong curve, size): not verified.
  }
  const payload = valid ? decodedObject(encodedPayload) : undefined;
  return payload ? { header, payload } : undefined;
};
