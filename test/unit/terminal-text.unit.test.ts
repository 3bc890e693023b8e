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
    const text = fc.string({ unit: 'binary', maxLength: 20 });
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), (value) => {
        for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
          const shown = terminalSafe(json);
          expect(shown).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
          expect(JSON.parse(shown)).toEqual(value);
        }
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
