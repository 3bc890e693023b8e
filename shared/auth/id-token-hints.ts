import { config } from '../config.js';
import type { IdTokenHint } from '../domain/logout-hint.js';
import { verifiedOwnToken } from './own-tokens.js';
import { CLIENT_ID } from './token-request.js';

/**
 * An ID token of this service handed back as `id_token_hint` (OpenID Connect Core 3.1.2.1 at the
 * authorization endpoint, RP-Initiated Logout 1.0 section 2 at logout): who it was issued to and
 * for which sign-in. Expired is fine (logout: the OP SHOULD accept it), up to the longest a
 * session lives: no older one can belong to a live session, and no key signing it is kept longer.
 */
export const idTokenHint = async (token: string): Promise<IdTokenHint | undefined> => {
  const claims = await verifiedOwnToken(token, {
    typ: 'JWT',
    audience: null,
    graceSeconds: config().signIn.sessionAbsoluteSeconds,
  });
  const { aud, org, sub, auth_time: authTime } = claims ?? {};
  // `aud` is the application's client_id (OpenID Connect Core 2).
  return typeof aud === 'string' &&
    CLIENT_ID.test(aud) &&
    typeof org === 'string' &&
    typeof sub === 'string' &&
    typeof authTime === 'number'
    ? { clientId: aud, organizationId: org, userId: sub, authTime }
    : undefined;
};
