import { createHash, randomBytes } from 'node:crypto';

/**
 * Values handed to browsers and applications (codes, sessions, refresh tokens, emailed links):
 * 256 random bits; the table keeps only their SHA-256 digests.
 */
export const newOpaqueValue = (): string => randomBytes(32).toString('base64url');
export const digestOf = (value: string): string => createHash('sha256').update(value).digest('base64url');
