import { describe, expect, it } from 'vitest';
import { cutText } from '../../shared/schemas/text.js';

/** Text cut to a length the API's schemas accept, as Unicode any store takes. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cutText', () => {
  it('keeps text within the length and cuts longer text to it', () => {
    expect(cutText('Ada', 200)).toBe('Ada');
    expect(cutText('N'.repeat(201), 200)).toBe('N'.repeat(200));
  });

  it('never cuts within a surrogate pair', () => {
    expect(cutText(`${'a'.repeat(199)}😀`, 200)).toBe('a'.repeat(199));
    expect(cutText('😀'.repeat(150), 200)).toBe('😀'.repeat(100));
    for (let length = 1; length <= 9; length++)
      expect(cutText('😀a😀😀b', length)).not.toMatch(LONE_SURROGATE);
  });

  it('replaces a lone surrogate the text brought', () => {
    expect(cutText('a\uD800b\uDC00', 200)).toBe('a\uFFFDb\uFFFD');
  });
});
