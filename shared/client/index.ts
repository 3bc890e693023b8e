export { IdpApiError, IdpNetworkError, IdpOAuthError, stepUpChallengeOf } from './errors.js';
export { IdpClient, type IdpClientOptions, nextLink } from './idp-client.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
export { DEFAULT_PACING, type Pacing } from './token-bucket.js';
export type { NoContent, OperationId, OperationInput, OperationOutput } from './types.js';
