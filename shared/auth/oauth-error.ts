/** RFC 6749 section 5.2 error; the OAuth endpoints answer these instead of the API error shape. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 413,
    readonly error:
      | 'invalid_request'
      | 'invalid_client'
      | 'invalid_grant'
      | 'invalid_scope'
      | 'unauthorized_client'
      | 'unsupported_grant_type'
      | 'unsupported_token_type',
    readonly description: string,
  ) {
    super(description);
  }
}
