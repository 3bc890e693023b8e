import type { AuthorizationError } from '../domain/authorization.js';

/** A client the token endpoint read: its refusals are recorded in its organization. */
export interface KnownClient {
  id: string;
  organizationId: string;
}

/**
 * An `error_description` keeps to RFC 6749 5.2's characters (printable ASCII but `"` and `\`),
 * whatever a request put in it: double quotes become single ones, anything else outside the set
 * a `?`.
 */
export const errorDescription = (text: string): string =>
  text.replace(/"/g, "'").replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '?');

/** RFC 6749 section 5.2 error; the OAuth endpoints answer these instead of the API error shape. */
export class OAuthError extends Error {
  /** The client refused, when it exists (a wrong secret, a grant it may not use): its id and organization only. */
  readonly client?: KnownClient;
  /** What went wrong, in RFC 6749's characters. */
  readonly description: string;

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
    description: string,
    // A whole client record is narrowed here: an error may be logged, its secret never.
    client?: KnownClient,
  ) {
    super(errorDescription(description));
    this.description = this.message;
    if (client) this.client = { id: client.id, organizationId: client.organizationId };
  }
}
