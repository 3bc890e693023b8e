/**
 * Stored names reach the operator's terminal, and anyone who may name a user, role or client
 * chooses them. A control character (C0 but line breaks and tabs, DEL, and C1, whose CSI U+009B
 * and OSC U+009D terminals act on) could clear the screen, rewrite lines, set the title or write
 * the clipboard; a bidirectional control could reorder what is shown. Each is shown as `\uXXXX`
 * instead, which is also how JSON writes it: `--json` output stays valid JSON of the same values.
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters escaped
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export const terminalSafe = (text: string): string =>
  text.replace(UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
