import type { AuthorizationError } from '../domain/authorization.js';

/** A client the token endpoint read: its refusals are recorded in its organization. */
export interface KnownClient {
  id: string;
  organizationId: string;
}

/** RFC 6749 section 5.2 error; the OAuth endpoints answer these instead of the API error shape. */
export class OAuthError extends Error {
  /** The client refused, when it exists (a wrong secret, a grant it may not use): its id and organization only. */
  readonly client?: KnownClient;

  constructor(
    readonly status: 400 | 401 | 413,
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'invalid_scope'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'unsupported_token_type'
      // The authorization endpoint's (RFC 6749 4.1.2.1; OpenID Connect Core 6), as a pushed
      // authorization request answers them (RFC 9126 section 2.3).
      | AuthorizationError,
    readonly description: string,
    // A whole client record is narrowed here: an error may be logged, its secret never.
    client?: KnownClient,
  ) {
    super(description);
    if (client) this.client = { id: client.id, organizationId: client.organizationId };
  }
}
