import type { CustomFetch } from 'openid-client';

/**
 * How the relying party (openid-client) reaches an SSO provider's upstream: its `customFetch`.
 * Every failure becomes a FederationError the sign-in pages explain, answers are read up to a
 * size limit, redirects are never followed, and all calls of one sign-in share a deadline that
 * ends before the function's own timeout (10 s), so a slow upstream gets a page, not a 500.
 */

export type FederationFailure =
  /** Network failure, timeout, a redirect, or a 5xx answer. */
  | 'unreachable'
  /** The upstream refused IDP's client credentials (invalid_client, 401). */
  | 'client-refused'
  /** Another OAuth error from the upstream (invalid_grant, ...). */
  | 'refused'
  /** The answer did not validate: discovery document, token response, ID token, UserInfo. */
  | 'invalid-answer'
  /** The application asked for a recent sign-in (max_age, prompt=login) and the upstream's is older. */
  | 'authentication-too-old';

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
export const MAX_ANSWER_BYTES = 1024 * 1024;

export const newDeadline = () => Date.now() + UPSTREAM_BUDGET_MILLIS;

/** The upstream's endpoints whose refusals mean something of their own. */
export interface UpstreamEndpoints {
  token_endpoint?: string | undefined;
  userinfo_endpoint?: string | undefined;
  jwks_uri?: string | undefined;
}

const hrefOf = (url: string | undefined) => (url && URL.canParse(url) ? new URL(url).href : undefined);

/** What an answer from `url` is, for the log. */
const answerName = (url: string, endpoints: UpstreamEndpoints) => {
  const href = new URL(url).href;
  if (href === hrefOf(endpoints.token_endpoint)) return 'the token response';
  if (href === hrefOf(endpoints.userinfo_endpoint)) return 'the userinfo response';
  if (href === hrefOf(endpoints.jwks_uri)) return 'the JWKS';
  return 'the discovery document';
};

/** The OAuth error code of a refusal, if its body has one (any body will do). */
const errorCodeOf = (body: Uint8Array, status: number) => {
  let error: unknown;
  try {
    error = (JSON.parse(Buffer.from(body).toString('utf8')) as { error?: unknown } | null)?.error;
  } catch {
    // Not JSON: the status speaks.
  }
  return (typeof error === 'string' && error.slice(0, 100).replace(/[^\w.-]/g, '')) || `status ${status}`;
};

/** Lets go of an answer whose body is of no use. */
const discard = (response: Response) => response.body?.cancel().catch(() => undefined);

/** The body, read up to MAX_ANSWER_BYTES; one that breaks off counts as unreachable. */
const bodyOf = async (response: Response, what: string): Promise<Uint8Array> => {
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
  return Buffer.concat(chunks);
};

/** Statuses whose answers carry no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The `customFetch` for one sign-in's calls to the upstream. A refusal of the token endpoint is
 * told apart from a refused client (the status decides first: a 401 is a refused client whatever
 * its body says, or lacks); any other unsuccessful answer is a FederationError here, so the
 * library only ever reads successful answers, buffered.
 */
export const upstreamFetch =
  (deadline: number, endpoints: UpstreamEndpoints = {}): CustomFetch =>
  async (url, options) => {
    const { origin } = new URL(url);
    const what = answerName(url, endpoints);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new FederationError('unreachable', `${origin}: out of time`);
    const timeout = AbortSignal.timeout(remaining);
    let response: Response;
    try {
      response = await fetch(url, {
        ...options,
        redirect: 'manual',
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new FederationError('unreachable', `${origin}: ${(error as Error).name}`);
    }
    if (response.status >= 500) {
      await discard(response);
      throw new FederationError('unreachable', `${origin} answered ${response.status}`);
    }
    if (response.status >= 300 && response.status < 400) {
      await discard(response);
      throw new FederationError(
        'unreachable',
        `${origin} answered a redirect (${response.status}), not followed`,
      );
    }
    const body = await bodyOf(response, what);
    if (!response.ok) {
      if (what === 'the token response') {
        const error = errorCodeOf(body, response.status);
        const clientRefused =
          response.status === 401 || error === 'invalid_client' || error === 'unauthorized_client';
        throw new FederationError(clientRefused ? 'client-refused' : 'refused', `token endpoint: ${error}`);
      }
      if (what === 'the userinfo response') {
        throw new FederationError('refused', `userinfo answered ${response.status}`);
      }
      throw new FederationError('unreachable', `${what.replace(/^the /, '')} answered ${response.status}`);
    }
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

/** The library's refusal of an `auth_time` older than the `max_age` it was given. */
const authTimeTooOld = (error: unknown) =>
  error instanceof Error &&
  error.cause instanceof Error &&
  (error.cause.cause as { claim?: unknown } | undefined)?.claim === 'auth_time';

/**
 * What went wrong in a call of openid-client, as a FederationError: one of ours raised in
 * `upstreamFetch` (the library wraps it), or the library's refusal of what the upstream answered.
 * Its messages name what failed, never a value, so they may go to the log.
 */
export const federationErrorOf = (error: unknown, step: string): FederationError => {
  let cause = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++, cause = cause.cause) {
    if (cause instanceof FederationError) return cause;
  }
  if (authTimeTooOld(error)) {
    return new FederationError('authentication-too-old', `${step}: auth_time is older than max_age allows`);
  }
  const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const message = reason instanceof Error ? reason.message : 'not an answer';
  return new FederationError('invalid-answer', `${step}: ${message.slice(0, 200)}`);
};
