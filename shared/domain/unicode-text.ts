/** Half a UTF-16 surrogate pair on its own: not Unicode text, which DynamoDB may refuse to store. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Whether `text` is Unicode text: no half surrogate pair on its own, which JSON can spell
 * (`"\udc00"`) though I-JSON (RFC 7493) forbids it and UTF-8 cannot hold it.
 */
export const isUnicodeText = (text: string): boolean =>
  !/[\uD800-\uDFFF]/.test(text) || text.match(LONE_SURROGATE) === null;
