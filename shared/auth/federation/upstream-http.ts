/**
 * Calls to an SSO provider's upstream: every failure becomes a FederationError the sign-in pages
 * explain, answers are read up to a size limit, and all calls of one sign-in share a deadline
 * that ends before the function's own timeout (10 s), so a slow upstream gets a page, not a 500.
 */

export type FederationFailure =
  /** Network failure, timeout, or a 5xx answer. */
  | 'unreachable'
  /** The upstream refused IDP's client credentials (invalid_client, 401). */
  | 'client-refused'
  /** Another OAuth error from the upstream (invalid_grant, ...). */
  | 'refused'
  /** The answer did not validate: discovery document, token response, ID token. */
  | 'invalid-answer';

export class FederationError extends Error {
  constructor(
    readonly failure: FederationFailure,
    /** For the log: what went wrong, never a token or secret. */
    readonly detail: string,
  ) {
    super(`${failure}: ${detail}`);
    this.name = 'FederationError';
  }
}

/** Time for all upstream calls of one request (epoch ms deadline = start + this). */
export const UPSTREAM_BUDGET_MILLIS = 7_000;
/** Discovery documents, key sets, token and UserInfo answers are small. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export const newDeadline = () => Date.now() + UPSTREAM_BUDGET_MILLIS;

const originOf = (url: string) => new URL(url).origin;

export const upstreamFetch = async (url: string, init: RequestInit, deadline: number): Promise<Response> => {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new FederationError('unreachable', `${originOf(url)}: out of time`);
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(remaining) });
  } catch (error) {
    throw new FederationError('unreachable', `${originOf(url)}: ${(error as Error).name}`);
  }
  if (response.status >= 500) {
    await discard(response);
    throw new FederationError('unreachable', `${originOf(url)} answered ${response.status}`);
  }
  return response;
};

/** Lets go of an answer whose body is of no use. */
export const discard = (response: Response) => response.body?.cancel().catch(() => undefined);

/** The answer's body as JSON, read up to 1 MiB; a body that breaks off counts as unreachable. */
export const readJson = async (response: Response, what: string): Promise<unknown> => {
  if (Number(response.headers.get('content-length') ?? 0) > MAX_ANSWER_BYTES) {
    await discard(response);
    throw new FederationError('invalid-answer', `${what} is too large`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await discard(response);
        throw new FederationError('invalid-answer', `${what} is too large`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof FederationError) throw error;
    throw new FederationError('unreachable', `${what} broke off: ${(error as Error).name}`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new FederationError('invalid-answer', `${what} is not JSON`);
  }
};
