import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../bin/admin/terminal-text.js';

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

describe('terminalSafe: what the operator CLI prints', () => {
  it('shows C0, DEL, C1 and bidirectional controls as \\uXXXX, and keeps line breaks, tabs and text', () => {
    expect(terminalSafe('Eve\u009b2J\u009d0;owned\u009c')).toBe('Eve\\u009b2J\\u009d0;owned\\u009c');
    expect(terminalSafe('a\u001b[2Jb\u0007\r\u007f')).toBe('a\\u001b[2Jb\\u0007\\u000d\\u007f');
    expect(terminalSafe('abc\u202edcba\u2066x\u2069\u200f')).toBe('abc\\u202edcba\\u2066x\\u2069\\u200f');
    // Positive control: what a terminal only displays passes as it is.
    const plain = 'Zoë Ångström\tمرحبا 你好 🙂\nnext line ¡\u00a0°';
    expect(terminalSafe(plain)).toBe(plain);
  });

  it('keeps JSON valid and its values the same (a property test)', () => {
    console.log(`terminal text JSON property: seed ${SEED}`);
    // Characters of every kind, the escaped ones often.
    const character = fc.oneof(
      fc.integer({ min: 0, max: 0x10ffff }).map((codePoint) => String.fromCodePoint(codePoint)),
      fc.constantFrom('\u0000', '\n', '\u001b', '\u007f', '\u0085', '\u009b', '\u202e', '\u2066', '\\', '"'),
    );
    const text = fc.array(character, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), (value) =>
        [JSON.stringify(value), JSON.stringify(value, null, 2)].every((json) => {
          const shown = terminalSafe(json);
          return (
            !/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(shown) &&
            JSON.stringify(JSON.parse(shown)) === JSON.stringify(value)
          );
        }),
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});
