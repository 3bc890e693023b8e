import { checkAuthorizationRequest } from '../domain/authorization.js';
import type { ApiClientRecord } from '../store/api-client-repository.js';
import { PUSHED_REQUEST_SECONDS, pushAuthorizationRequest } from '../store/pushed-requests.js';
import { OAuthError } from './oauth-error.js';

/**
 * A pushed request is stored (a DynamoDB item holds 400 KB) and copied into the pending sign-in
 * and the redirect back; one sent through a browser is bounded by the URL anyway.
 */
export const PUSHED_REQUEST_LIMIT = { bytes: 64 * 1024, said: '64 KiB' };

/** How a client proves itself: never kept with the request it pushed. */
export const CLIENT_CREDENTIALS = new Set(['client_secret', 'client_assertion', 'client_assertion_type']);

/**
 * RFC 9126: an application authenticated as at the token endpoint pushes its authorization
 * request; it is checked as the authorization endpoint checks it, and any error is answered here
 * (JSON, section 2.3) rather than in a redirect. Answers the `request_uri` the browser is sent with.
 */
export const pushedRequestAnswer = async (
  form: URLSearchParams,
  client: ApiClientRecord,
  now = Date.now(),
) => {
  // Section 2.1: a pushed request does not name another.
  if (form.has('request_uri'))
    throw new OAuthError(400, 'invalid_request', 'request_uri cannot be pushed', client);
  const parameters = new URLSearchParams([...form].filter(([name]) => !CLIENT_CREDENTIALS.has(name)));
  parameters.set('client_id', client.id);
  const outcome = checkAuthorizationRequest(parameters, client, true);
  if (outcome.kind === 'error-page') throw new OAuthError(400, 'invalid_request', outcome.message, client);
  if (outcome.kind === 'error-redirect')
    throw new OAuthError(400, outcome.error, outcome.description, client);
  return {
    request_uri: await pushAuthorizationRequest(client.id, parameters, now),
    expires_in: PUSHED_REQUEST_SECONDS,
  };
};
