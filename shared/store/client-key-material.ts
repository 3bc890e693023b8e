import { createPublicKey } from 'node:crypto';
import type { ClientJwks } from '../domain/client-keys.js';
import { InvalidReference } from '../domain/errors.js';

/**
 * Refuses a key set with a key whose numbers make no key (a point off its curve, a broken
 * modulus), which the schema's rules cannot see: Node's crypto imports each key as the
 * verifier will, naming the first it cannot.
 */
export const refuseUnusableKeys = (jwks: ClientJwks | undefined): void => {
  for (const [index, jwk] of (jwks?.keys ?? []).entries()) {
    try {
      createPublicKey({ key: jwk as never, format: 'jwk' });
    } catch {
      const message = 'Not a valid public key';
      throw new InvalidReference(message, [
        { message, field: `jwks.keys.${index}`, rejectedValue: jwk.kid ?? index },
      ]);
    }
  }
};
