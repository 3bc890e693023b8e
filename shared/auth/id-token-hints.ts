import type { IdTokenHint } from '../domain/logout-hint.js';
import { verifiedOwnToken } from './own-tokens.js';
import { CLIENT_ID } from './token-request.js';

/**
 * How long after its expiry an ID token is still taken as a hint: as long as a key that signed it
 * is kept. One older than the longest a session lives names no live session, so it is a hint
 * that matches none (the person is asked at logout; `prompt=none` answers `login_required`), not
 * an ID token of someone else's (400 `invalid_request`, which applications treat as final).
 */
const ANY_AGE_SECONDS = 100 * 365 * 24 * 3600;

/**
 * An ID token of this service handed back as `id_token_hint` (OpenID Connect Core 3.1.2.1 at the
 * authorization endpoint, RP-Initiated Logout 1.0 section 2 at logout): who it was issued to and
 * for which sign-in. Expired or not (Core: "need not be unexpired"; logout: the OP SHOULD accept it).
 */
export const idTokenHint = async (token: string): Promise<IdTokenHint | undefined> => {
  const claims = await verifiedOwnToken(token, { typ: 'JWT', audience: null, graceSeconds: ANY_AGE_SECONDS });
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
