/**
 * What an `Idempotency-Key` may be: 1 to 255 visible ASCII characters (header values carry no
 * others intact). The middleware refuses anything else; the OpenAPI document states both.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]+$/;
