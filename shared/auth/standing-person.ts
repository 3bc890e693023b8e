import { signInStillStands } from '../domain/authorization.js';
import { getApiClient } from '../store/api-client-repository.js';
import { getUser, type UserRecord } from '../store/user-repository.js';

/** The claims of a person's access token of this service that say whether it still stands. */
export interface PersonTokenClaims {
  org: string;
  sub: string;
  client_id?: unknown;
  iat?: number;
}

/**
 * The person a verified access token of ours names, while what issued it still stands: the
 * application it was issued to is still registered in the token's organization (the operator's
 * tooling issues some that name none), and the person is still ACTIVE with no new password since.
 * Undefined otherwise. Introspection and UserInfo answer alike (RFC 7662, OIDC Core 5.3).
 */
export const standingPerson = async (claims: PersonTokenClaims): Promise<UserRecord | undefined> => {
  const clientId = claims.client_id;
  const [client, user] = await Promise.all([
    typeof clientId === 'string' ? getApiClient(clientId) : undefined,
    getUser(claims.org, claims.sub, true),
  ]);
  if (clientId !== undefined && client?.organizationId !== claims.org) return undefined;
  // `iat` is whole seconds: a token of the very second of a new password stands (Keycloak's
  // not-before is whole seconds too), or one issued just after setting it would be ended by it.
  return signInStillStands(user, (claims.iat ?? 0) * 1000 + 999) ? user : undefined;
};
