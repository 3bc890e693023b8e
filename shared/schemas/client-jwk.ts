import { CLIENT_ASSERTION_ALGORITHMS } from '../domain/client-keys.js';
import * as z from '../zod.js';

/*
 * Apart from the client schemas (clients.ts) and built on first use, because the stored client
 * entity needs them too: every function reads entities, and importing clients.ts there built its
 * hundred-odd schemas at each cold start of functions that never see a client.
 */

const build = () => {
  const base64url = z.string().check(z.minLength(1), z.maxLength(2000), z.regex(/^[A-Za-z0-9_-]+$/));
  /**
   * A public JSON Web Key as registered (RFC 7517, RFC 7518 6): its members are checked as a whole
   * by shared/domain/client-keys.ts. A private member (`d`, …) is refused as unknown.
   */
  const jwk = z.strictObject({
    kty: z.enum(['EC', 'RSA', 'OKP']),
    kid: z.optional(z.string().check(z.minLength(1), z.maxLength(200), z.regex(/^[\x20-\x7E]+$/))),
    alg: z.optional(z.enum(CLIENT_ASSERTION_ALGORITHMS)),
    use: z.optional(z.enum(['sig'])),
    key_ops: z.optional(z.array(z.enum(['verify'])).check(z.maxLength(1))),
    crv: z.optional(z.enum(['P-256', 'P-384', 'P-521', 'Ed25519'])),
    x: z.optional(base64url),
    y: z.optional(base64url),
    n: z.optional(base64url),
    e: z.optional(base64url),
  });
  /** A JWK Set as stored, once checked (shared/store/entities.ts). */
  const storedJwks = z.object({ keys: z.array(jwk) });
  return { jwk, storedJwks };
};

let built: ReturnType<typeof build> | undefined;
/** The registered key's schema and the stored key set's, built the first time either is needed. */
export const jwkSchemas = () => {
  built ??= build();
  return built;
};
