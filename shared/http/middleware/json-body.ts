import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { isUnicodeText } from '../../domain/unicode-text.js';
import { MAX_REQUEST_BODY_BYTES } from '../body-limits.js';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';
/** Far deeper than any request of the API; deep enough nesting exhausts the stack of whatever walks it. */
export const MAX_JSON_DEPTH = 32;

const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\s*(;|$)/i;

/** The deepest nesting of arrays and objects in a JSON text, counted without parsing it. */
export const jsonNestingDepth = (text: string): number => {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c)
        index++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x5d || char === 0x7d) depth--;
  }
  return deepest;
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** JSON text is UTF-8 (RFC 8259 section 8.1); anything else is malformed, not silently repaired. */
const utf8Of = (bytes: Buffer): string => {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw badRequest('The request body is not valid UTF-8');
  }
};

class PrototypeKey extends Error {}
class NotUnicodeText extends Error {}

/**
 * `__proto__` would set an object's prototype wherever the parsed body is copied (schemas drop
 * it); half a surrogate pair, which JSON can spell, is not text anything can store or answer.
 */
const refuseUnsafeText = (key: string, value: unknown) => {
  if (key === '__proto__') throw new PrototypeKey();
  if (!isUnicodeText(key) || (typeof value === 'string' && !isUnicodeText(value))) throw new NotUnicodeText();
  return value;
};

/**
 * Parses a JSON request body: 415 for another content type, 413 above 1 MiB, 400 for a missing,
 * malformed or too deeply nested body. Written here rather than taken from Middy's parser, which
 * has no depth limit and answers malformed JSON with 415.
 */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: (request) => {
    const { event } = request;
    if (event.body === undefined || event.body === '') throw badRequest('A JSON request body is required');
    const bytes = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body);
    if (bytes.byteLength > MAX_REQUEST_BODY_BYTES)
      throw payloadTooLarge('The JSON body is larger than 1 MiB');
    if (!JSON_MEDIA_TYPE.test(event.headers['content-type'] ?? '')) {
      throw unsupportedMediaType('The request body must be application/json');
    }
    const text = utf8Of(bytes);
    if (jsonNestingDepth(text) > MAX_JSON_DEPTH) {
      throw badRequest(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    try {
      (request.event as { body: unknown }).body = JSON.parse(text, refuseUnsafeText);
    } catch (error) {
      if (error instanceof PrototypeKey) throw badRequest('The property name "__proto__" is not allowed');
      if (error instanceof NotUnicodeText)
        throw badRequest(
          'The request body holds half a surrogate pair (an escape such as \\udc00): not Unicode text',
        );
      throw badRequest('The request body is not valid JSON');
    }
  },
});
