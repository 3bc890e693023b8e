import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) as DECISIONS.md fixes them:
 * SHA-1, 6 digits, 30 s steps, one step of drift either way. Written over node:crypto's HMAC
 * (a dozen lines) rather than a library that would bring its own SHA-1 into the bundle.
 */

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
const DRIFT_STEPS = 1;
const SECRET_BYTES = 20;

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding, as authenticator apps expect in `otpauth://` URIs. */
export const base32Encode = (bytes: Uint8Array): string => {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
};

export const base32Decode = (text: string): Buffer => {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, '').toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('Not a base32 string');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
};

/** HOTP (RFC 4226 5.3): HMAC-SHA-1 of the counter, dynamically truncated to `digits` digits. */
export const hotp = (key: Buffer, counter: number, digits = TOTP_DIGITS): string => {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
};

export const totpStep = (nowMillis: number): number => Math.floor(nowMillis / 1000 / TOTP_STEP_SECONDS);

export const newTotpSecret = (): string => base32Encode(randomBytes(SECRET_BYTES));

export const isTotpCode = (code: string): boolean => new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code);

/**
 * The time step whose code `code` is (now, or one step either side), or undefined. The caller
 * accepts a step at most once (RFC 6238 5.2), so a code seen by someone else cannot be replayed.
 */
export const matchingStep = (secret: string, code: string, nowMillis: number): number | undefined => {
  if (!isTotpCode(code)) return undefined;
  const key = base32Decode(secret);
  const now = totpStep(nowMillis);
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    if (timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(code))) return step;
  }
  return undefined;
};

/** The key URI authenticator apps read from the QR code (Google Authenticator's format). */
export const otpauthUri = (options: { issuer: string; account: string; secret: string }): string => {
  const label = `${encodeURIComponent(options.issuer)}:${encodeURIComponent(options.account)}`;
  const query = new URLSearchParams({
    secret: options.secret,
    issuer: options.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
};
