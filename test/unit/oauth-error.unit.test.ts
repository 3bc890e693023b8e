import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorDescription, OAuthError } from '../../shared/auth/oauth-error.js';

/**
 * RFC 6749 5.2: an error_description holds printable ASCII but `"` and `\`. Descriptions quote
 * what requests sent (a grant type, a parameter's name), so every OAuthError keeps to the set.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const RFC_6749_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
const anyText = fc
  .array(fc.integer({ min: 0, max: 0x10ffff }), { maxLength: 30 })
  .map((codePoints) => String.fromCodePoint(...codePoints));

describe('error descriptions', () => {
  it('keep to RFC 6749 5.2 characters whatever a request put in them', () => {
    console.log(`oauth error descriptions: seed ${SEED}`);
    fc.assert(
      // Any code point, lone surrogates included (fast-check's 'binary' unit costs seconds to set up).
      fc.property(anyText, (sent) => {
        const error = new OAuthError(400, 'unsupported_grant_type', `Unsupported grant_type ${sent}`);
        expect(error.description).toMatch(RFC_6749_DESCRIPTION);
        expect(error.message).toBe(error.description);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('leave a description within the set as it is, and say quotes with single ones', () => {
    expect(errorDescription("aud must be this server's issuer identifier, as a string")).toBe(
      "aud must be this server's issuer identifier, as a string",
    );
    expect(errorDescription('The parameter "scope" is repeated')).toBe("The parameter 'scope' is repeated");
    expect(errorDescription('a\\b\né')).toBe('a?b??');
  });
});
