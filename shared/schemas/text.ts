import { LONE_SURROGATE } from '../domain/unicode-text.js';
import * as z from '../zod.js';

// Control characters would break log lines, e-mail headers and exports, and hide text on pages.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
export const ONE_LINE = /^[^\u0000-\u001F\u007F]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const LINES = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]*$/;

export const NO_CONTROL_CHARACTERS = 'No control characters';

/** One line: each run of control characters becomes a space (text the service passes on). */
export const asOneLine = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters replaced
  text.replace(/[\u0000-\u001F\u007F]+/g, ' ');

/**
 * `text` cut to at most `max` UTF-16 units (what `maxLength` counts) between two characters,
 * never within a surrogate pair (an emoji); a lone surrogate it brought becomes U+FFFD.
 */
export const cutText = (text: string, max: number): string => {
  const cut = text.replace(LONE_SURROGATE, '\uFFFD').slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
};

/** A name or label: one line of 1 to `max` characters once trimmed. */
export const oneLine = (max: number) =>
  // Control characters are refused as sent, also around the name ("\r\nX"); spaces are trimmed.
  z.string().check(z.regex(ONE_LINE, NO_CONTROL_CHARACTERS), z.trim(), z.minLength(1), z.maxLength(max));

/** Free text such as a description: tabs and line breaks, but no other control characters. */
export const freeText = (max: number) =>
  z.string().check(z.maxLength(max), z.regex(LINES, 'No control characters but tabs and line breaks'));

export const DISPLAY_NAME_MAX = 200;

/** A person's name; also what single sign-on brings (shared/auth/federation/federated-person.ts). */
export const displayName = oneLine(DISPLAY_NAME_MAX);
